import type { AppContext } from '../../context.ts';
import {
  findRelease,
  findReleaseForUpdate,
  insertHistory,
  type ReleaseRow,
  updateRelease,
} from '../../core/releases.ts';
import { listReleaseTracks } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import type { EventKind } from '../../db/values.ts';
import { ApiError, errors } from '../../errors.ts';
import { enqueue, payloadId } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { distributorFor } from '../distributor/index.ts';
import { publish } from '../events/index.ts';
import { workspaceOwning } from '../labels/index.ts';
import { findReleaseListRow, listReleasesAwaitingReview, presentEventRelease } from '../releases/index.ts';
import { automatedChecks, type Finding } from './moderation.checks.ts';
import { assignIdentifiers } from './moderation.identifiers.ts';

export const MODERATION_JOB = 'moderation.review';

/** The comment of an approval by the automated checks. */
export const AUTO_APPROVAL_COMMENT = 'Automated checks passed';

/** An event a moderation step publishes once its writes are done (publishing comes last). */
export interface StepEvent {
  event: EventKind;
  data: Record<string, unknown>;
}

export async function publishAll(
  trx: Db,
  workspace: Workspace,
  events: readonly StepEvent[],
  at: string,
): Promise<void> {
  for (const { event, data } of events) await publish(trx, workspace, event, data, at);
}

export function waitsForModeration(release: Pick<ReleaseRow, 'status' | 'review_status'>): boolean {
  return release.status === 'submitting' && release.review_status === 'pending';
}

/** Queues the automated review of a release just submitted (MODERATION=auto), in the submit's transaction. */
export async function queueReview(trx: Db, releaseId: number, at: Date): Promise<void> {
  await enqueue(trx, [{ kind: MODERATION_JOB, payload: { release_id: releaseId }, runAt: at }], at);
}

/** The `release` object of event data, as the release is now. */
export async function eventRelease(trx: Db, workspace: Workspace, releaseId: number) {
  const row = await findReleaseListRow(trx, workspace.id, releaseId);
  if (!row) throw errors.notFound('Release');
  return presentEventRelease(row);
}

/**
 * Approval (docs/decisions.md): the release gets its UPC and ISRCs, goes to the distributor
 * (status `submitted`), and `release.approved` then `release.submitted` follow.
 */
export async function approve(
  trx: Db,
  ctx: AppContext,
  workspace: Workspace,
  release: ReleaseRow,
  comment: string | null,
  at: Date,
): Promise<StepEvent[]> {
  const iso = at.toISOString();
  const tracks = await listReleaseTracks(trx, workspace.id, release.id);
  const { upc, isrcs } = await assignIdentifiers(trx, ctx.config, workspace, release, tracks, at);
  await updateRelease(trx, workspace.id, release.id, {
    status: 'submitted',
    review_status: 'approved',
    review_comment: comment,
    updated_at: iso,
  });
  await insertHistory(trx, {
    label_id: workspace.id,
    release_id: release.id,
    status: 'submitted',
    review_status: 'approved',
    comment,
    at: iso,
  });
  await distributorFor(ctx.config, workspace).deliver(trx, { id: release.id, upc, isrcs }, at);
  const view = await eventRelease(trx, workspace, release.id);
  return [
    { event: 'release.approved', data: { release: view, comment } },
    { event: 'release.submitted', data: { release: view, upc, isrcs } },
  ];
}

/** Rejection: the release is a draft again, with the reasons, to be fixed and resubmitted. */
export async function reject(
  trx: Db,
  workspace: Workspace,
  release: ReleaseRow,
  comment: string,
  at: Date,
): Promise<StepEvent[]> {
  const iso = at.toISOString();
  await updateRelease(trx, workspace.id, release.id, {
    status: 'draft',
    review_status: 'rejected',
    review_comment: comment,
    updated_at: iso,
  });
  await insertHistory(trx, {
    label_id: workspace.id,
    release_id: release.id,
    status: 'draft',
    review_status: 'rejected',
    comment,
    at: iso,
  });
  return [
    { event: 'release.rejected', data: { release: await eventRelease(trx, workspace, release.id), comment } },
  ];
}

export type Decision = { approve: true; comment: string | null } | { approve: false; comment: string };

/**
 * Decides a release waiting for moderation, by id (the operator's command, the automated review).
 * `seenAt` is the release's `updated_at` the decision was made on: if the label changed a track
 * since, nothing is decided and the result is 'changed'.
 */
export async function decide(
  ctx: AppContext,
  releaseId: number,
  decision: Decision,
  seenAt?: string,
): Promise<'decided' | 'changed'> {
  return ctx.db.transaction().execute(async (trx) => {
    const workspace = await workspaceOwning(trx, 'releases', releaseId);
    const release = workspace && (await findReleaseForUpdate(trx, ctx.dialect, workspace.id, releaseId));
    if (!workspace || !release) throw errors.notFound('Release');
    if (!waitsForModeration(release)) {
      throw errors.conflict(`Release ${releaseId} is not waiting for moderation (it is ${release.status})`);
    }
    if (seenAt !== undefined && release.updated_at !== seenAt) return 'changed';
    const at = ctx.clock.now();
    const events = decision.approve
      ? await approve(trx, ctx, workspace, release, decision.comment, at)
      : await reject(trx, workspace, release, decision.comment, at);
    await publishAll(trx, workspace, events, at.toISOString());
    return 'decided';
  });
}

export function commentOf(findings: readonly Finding[]): string {
  return findings.map((finding) => finding.message).join('\n');
}

/** A release waiting for moderation with its tracks, or null when it no longer waits. */
async function waitingRelease(ctx: AppContext, releaseId: number) {
  const workspace = await workspaceOwning(ctx.db, 'releases', releaseId);
  const release = workspace && (await findRelease(ctx.db, workspace.id, releaseId));
  if (!workspace || !release || !waitsForModeration(release)) return null;
  return { release, tracks: await listReleaseTracks(ctx.db, workspace.id, releaseId) };
}

/**
 * The automated review (MODERATION=auto): checks, then approval or rejection with the findings as
 * `review_comment`. The checks read files, so they run outside the decision's transaction; a track
 * changed meanwhile makes the review run again on what is there now.
 */
export function reviewHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const waiting = await waitingRelease(ctx, payloadId(job.payload, 'release_id'));
    if (!waiting || ctx.config.moderation !== 'auto') return undefined;
    const findings = await automatedChecks(ctx, waiting.release, waiting.tracks);
    const decision: Decision =
      findings.length === 0
        ? { approve: true, comment: AUTO_APPROVAL_COMMENT }
        : { approve: false, comment: commentOf(findings) };
    try {
      const outcome = await decide(ctx, waiting.release.id, decision, waiting.release.updated_at);
      return outcome === 'changed' ? { runAgainAt: ctx.clock.now() } : undefined;
    } catch (error) {
      // Decided meanwhile (by the operator) or deleted: nothing is left to review.
      if (error instanceof ApiError) return undefined;
      throw error;
    }
  };
}

export interface WaitingRelease {
  release_id: number;
  label_id: number;
  title: string;
  type: string;
  artist: string;
  submitted_at: string | null;
  tracks: number;
  findings: Finding[];
}

/** `labeldesk moderation list`: releases waiting for an operator, oldest first, with the automated findings. */
export async function moderationQueue(ctx: AppContext): Promise<WaitingRelease[]> {
  const rows = await listReleasesAwaitingReview(ctx.db);
  const queue: WaitingRelease[] = [];
  for (const row of rows) {
    const tracks = await listReleaseTracks(ctx.db, row.label_id, row.id);
    queue.push({
      release_id: row.id,
      label_id: row.label_id,
      title: row.title,
      type: row.type,
      artist: row.artist_name,
      submitted_at: row.submitted_at,
      tracks: tracks.length,
      findings: await automatedChecks(ctx, row, tracks),
    });
  }
  return queue;
}
