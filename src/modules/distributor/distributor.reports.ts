import { findReleaseForUpdate, insertHistory, updateRelease } from '../../core/releases.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import { dialectOf } from '../../db/portable.ts';
import type { Workspace } from '../../db/scope.ts';
import { DSP_STAGES, type DspStage, type EventKind, type ReleaseStatus } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { publish } from '../events/index.ts';
import { workspaceOwning } from '../labels/index.ts';
import { isPlatformKey, type PlatformKey, platformName, platformSearchUrl } from '../platforms/index.ts';
import { findReleaseListRow, presentEventRelease, type ReleaseListRow } from '../releases/index.ts';
import { DISTRIBUTOR_LAST_EVENT_MARK, stampMark } from '../status/index.ts';
import { AT_DISTRIBUTOR, canMove, statusFromStages } from './distributor.stages.ts';
import {
  approvedTakedownRequests,
  completeSupportRequests,
  releaseStages,
  upsertDspStatus,
} from './distributor.store.ts';

/** One platform's news about one release, as a distributor sends it. */
export interface PlatformReport {
  release_id: number;
  dsp: string;
  stage: string;
  detail?: string | null;
  /** The release's address on the platform, when it is live there. */
  url?: string | null;
}

export interface AppliedReport {
  release_id: number;
  dsp: PlatformKey;
  stage: DspStage;
  /** False when the platform was already at this stage: a repeated report changes nothing. */
  changed: boolean;
  release_status: ReleaseStatus;
}

/**
 * Who reports. Sandbox releases never reach the distributor: their platforms move only by the
 * sandbox's own timer, and the distributor's reports apply only to real releases.
 */
export type ReportOrigin = 'distributor' | 'sandbox';

/** The reports a distributor makes from a release's current platform stages (platform key to stage). */
export type ReportPlan = (stages: ReadonlyMap<string, string>) => PlatformReport[];

/** Where a report's problem is, for the error's `field`: the inbound endpoint prefixes its index. */
export type FieldPath = (index: number, field: string) => string;

interface ReleaseInFlight {
  workspace: Workspace;
  row: ReleaseListRow;
  stages: Map<string, DspStage>;
  storeLinks: Record<string, string>;
}

interface PendingEvent {
  workspace: Workspace;
  event: EventKind;
  data: Record<string, unknown>;
}

/** The longest `detail` a report may carry. */
export const MAX_DETAIL = 500;

function isStage(stage: string): stage is DspStage {
  return (DSP_STAGES as readonly string[]).includes(stage);
}

function checkUrl(url: string | null | undefined, field: string): string | null {
  if (url === undefined || url === null) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') return parsed.toString();
  } catch {
    // reported below
  }
  throw errors.invalid(field, `${field} must be an https address`);
}

async function loadInFlight(
  trx: Db,
  releaseId: number,
  origin: ReportOrigin,
  field: string,
): Promise<ReleaseInFlight> {
  const workspace = await workspaceOwning(trx, 'releases', releaseId);
  if (!workspace) throw errors.invalid(field, `No release has id ${releaseId}`);
  if (workspace.sandbox !== (origin === 'sandbox')) {
    throw errors.conflict(`Release ${releaseId} is a sandbox release: the distributor never received it`, {
      field,
    });
  }
  // Held first (PostgreSQL), so reports of one release apply one at a time; a report that changes
  // nothing leaves `updated_at` as it was.
  await findReleaseForUpdate(trx, dialectOf(trx), workspace.id, releaseId);
  const row = await findReleaseListRow(trx, workspace.id, releaseId);
  if (!row) throw errors.invalid(field, `No release has id ${releaseId}`);
  if (!(AT_DISTRIBUTOR as readonly string[]).includes(row.status)) {
    throw errors.conflict(`Release ${releaseId} is not at the distributor (it is ${row.status})`, { field });
  }
  const stages = new Map<string, DspStage>();
  for (const { dsp, stage } of await releaseStages(trx, workspace.id, releaseId)) {
    if (isStage(stage)) stages.set(dsp, stage);
  }
  return {
    workspace,
    row,
    stages,
    storeLinks: { ...readJson(row.store_links) },
  };
}

const STATUS_COMMENTS: Partial<Record<ReleaseStatus, (dsp: PlatformKey) => string>> = {
  live: (dsp) => `Live on ${platformName(dsp)}`,
  failed: () => 'Every platform rejected the release or failed to deliver it',
  takedown: () => 'Taken down from every platform',
  submitted: () => 'Back on its way to the platforms',
};

/**
 * The one way platform reports change a release, whoever sends them (the simulated distributor,
 * `labeldesk distributor report`, a real distributor at the signed inbound endpoint, a sandbox's
 * timer). For each report: the platform's stage, its store link, `release.dsp_status`; then the
 * release status its stages add up to, with a history entry, and `release.live` the first time it
 * is live; the distributor's last-report time for /status. A report that repeats the current stage
 * changes nothing; anything refused (unknown release or platform, a stage that cannot follow the
 * current one, a release not at the distributor) throws, and the caller's transaction leaves
 * every report of the batch unapplied.
 */
export async function applyPlatformReports(
  trx: Db,
  reports: readonly PlatformReport[],
  at: string,
  origin: ReportOrigin,
  fieldPath: FieldPath = (_index, field) => field,
): Promise<AppliedReport[]> {
  // Releases are taken in id order, so two batches naming the same releases wait for each other
  // instead of deadlocking.
  const order = reports.map((report, index) => ({ report, index }));
  order.sort((a, b) => a.report.release_id - b.report.release_id);
  const inFlight = new Map<number, ReleaseInFlight>();
  const events: PendingEvent[] = [];
  const applied: AppliedReport[] = new Array(reports.length);
  for (const { report, index } of order) {
    const field = (name: string) => fieldPath(index, name);
    if (!isPlatformKey(report.dsp)) {
      throw errors.invalid(
        field('dsp'),
        `${report.dsp} is not a platform key (GET /api/v1/platforms lists them)`,
      );
    }
    if (!isStage(report.stage)) {
      throw errors.invalid(field('stage'), `stage must be one of ${DSP_STAGES.join(', ')}`);
    }
    const detail = report.detail?.trim() || null;
    if (detail !== null && detail.length > MAX_DETAIL) {
      throw errors.invalid(field('detail'), `detail takes at most ${MAX_DETAIL} characters`);
    }
    const url = checkUrl(report.url, field('url'));
    let release = inFlight.get(report.release_id);
    if (!release) {
      release = await loadInFlight(trx, report.release_id, origin, field('release_id'));
      inFlight.set(report.release_id, release);
    }
    applied[index] = await applyOne(
      trx,
      release,
      { dsp: report.dsp, stage: report.stage, detail, url },
      at,
      events,
      field,
    );
  }
  for (const report of applied) {
    report.release_status = inFlight.get(report.release_id)?.row.status ?? report.release_status;
  }
  if (origin === 'distributor' && applied.some((report) => report.changed)) {
    await stampMark(trx, DISTRIBUTOR_LAST_EVENT_MARK, at);
  }
  // Each workspace's event sequence is held from its first event to the commit: two batches that
  // take the same workspaces in opposite orders would wait on each other. In workspace order (a
  // stable sort keeps each workspace's own events in the order of their reports), they cannot.
  const inWorkspaceOrder = [...events].sort((a, b) => a.workspace.id - b.workspace.id);
  for (const { workspace, event, data } of inWorkspaceOrder) await publish(trx, workspace, event, data, at);
  return applied;
}

/**
 * Approved takedown requests of the release are done once their platforms are all taken down: the
 * ones they name, or, for a request naming none, every platform (the release is then `takedown`).
 */
async function completeTakedowns(
  trx: Db,
  release: ReleaseInFlight,
  status: ReleaseStatus,
  at: string,
): Promise<void> {
  const requests = await approvedTakedownRequests(trx, release.workspace.id, release.row.id);
  const done = requests.filter(({ dsps }) =>
    dsps === null
      ? status === 'takedown'
      : readJson(dsps).every((dsp) => release.stages.get(dsp) === 'taken_down'),
  );
  await completeSupportRequests(
    trx,
    release.workspace.id,
    done.map((request) => request.id),
    at,
  );
}

async function applyOne(
  trx: Db,
  release: ReleaseInFlight,
  report: { dsp: PlatformKey; stage: DspStage; detail: string | null; url: string | null },
  at: string,
  events: PendingEvent[],
  field: (name: string) => string,
): Promise<AppliedReport> {
  const { workspace, row } = release;
  const from = release.stages.get(report.dsp) ?? null;
  const unchanged = {
    release_id: row.id,
    dsp: report.dsp,
    stage: report.stage,
    release_status: row.status,
  };
  if (from === report.stage) return { ...unchanged, changed: false };
  if (!canMove(from, report.stage)) {
    throw errors.conflict(`${report.dsp} cannot move from ${from ?? 'no stage'} to ${report.stage}`, {
      field: field('stage'),
    });
  }
  await upsertDspStatus(trx, {
    release_id: row.id,
    label_id: workspace.id,
    dsp: report.dsp,
    stage: report.stage,
    detail: report.detail,
    updated_at: at,
  });
  release.stages.set(report.dsp, report.stage);
  if (report.stage === 'live') {
    release.storeLinks[report.dsp] = report.url ?? platformSearchUrl(report.dsp, row.upc ?? row.title);
  } else {
    delete release.storeLinks[report.dsp];
  }
  const status = statusFromStages(release.stages);
  const firstLive = status === 'live' && row.live_at === null;
  const changes = {
    store_links: JSON.stringify(release.storeLinks),
    status,
    updated_at: at,
    ...(firstLive && { live_at: at }),
  };
  await updateRelease(trx, workspace.id, row.id, changes);
  if (report.stage === 'taken_down' || status === 'takedown')
    await completeTakedowns(trx, release, status, at);
  if (status !== row.status) {
    await insertHistory(trx, {
      label_id: workspace.id,
      release_id: row.id,
      status,
      review_status: row.review_status,
      comment: STATUS_COMMENTS[status]?.(report.dsp) ?? null,
      at,
    });
  }
  release.row = { ...row, ...changes };
  const eventRelease = presentEventRelease(release.row);
  events.push({
    workspace,
    event: 'release.dsp_status',
    data: { release: eventRelease, dsp: report.dsp, stage: report.stage, detail: report.detail },
  });
  if (firstLive)
    events.push({ workspace, event: 'release.live', data: { release: eventRelease, upc: row.upc } });
  return { ...unchanged, release_status: status, changed: true };
}

/**
 * Runs `plan` on the release's current platform stages with the release row held, then applies
 * the reports it makes. Returns the reports, or null when the release is gone.
 */
export async function applyPlannedReports(
  trx: Db,
  releaseId: number,
  at: string,
  origin: ReportOrigin,
  plan: ReportPlan,
): Promise<PlatformReport[] | null> {
  const workspace = await workspaceOwning(trx, 'releases', releaseId);
  if (!workspace || !(await findReleaseForUpdate(trx, dialectOf(trx), workspace.id, releaseId))) return null;
  const rows = await releaseStages(trx, workspace.id, releaseId);
  const reports = plan(new Map(rows.map((row) => [row.dsp, row.stage])));
  if (reports.length > 0) await applyPlatformReports(trx, reports, at, origin);
  return reports;
}
