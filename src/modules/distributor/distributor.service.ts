import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { ApiError, errors } from '../../errors.ts';
import { isPlatformKey, PLATFORM_KEYS, type PlatformKey, platformName } from '../platforms/index.ts';
import {
  type AppliedReport,
  applyPlannedReports,
  applyPlatformReports,
  type PlatformReport,
  type ReportOrigin,
  type ReportPlan,
} from './distributor.reports.ts';
import type { DistributorSignature } from './distributor.signature.ts';
import { releaseStages, rememberSignature } from './distributor.store.ts';

/**
 * The reports of a signed inbound request, in one transaction: the signature is remembered with
 * the reports it carried, so a batch that is refused leaves no trace and the same signed request
 * can be sent again, while an applied one cannot be replayed.
 */
export async function applySignedReports(
  ctx: AppContext,
  signature: DistributorSignature,
  reports: readonly PlatformReport[],
): Promise<AppliedReport[]> {
  const at = isoNow(ctx.clock);
  return ctx.db.transaction().execute(async (trx: Db) => {
    if (!(await rememberSignature(trx, signature.v1, at))) {
      throw errors.conflict(
        'These reports were already applied: a signature is accepted once; sign a new request',
      );
    }
    return applyPlatformReports(
      trx,
      reports,
      at,
      'distributor',
      (index, field) => `reports.${index}.${field}`,
    );
  });
}

/** A report an operator enters by hand: the same path as every other report, refused whole on any problem. */
export async function applyOperatorReport(ctx: AppContext, report: PlatformReport): Promise<AppliedReport> {
  const at = isoNow(ctx.clock);
  const [applied] = await ctx.db
    .transaction()
    .execute((trx: Db) => applyPlatformReports(trx, [report], at, 'distributor'));
  if (!applied) throw new Error('the report was not applied');
  return applied;
}

/**
 * One step of a distributor's own walk (the simulated distributor, a sandbox's timer): the reports
 * `plan` makes from the release's current platform stages, applied in one transaction. Returns the
 * reports, or null when the release is gone or was refused (deleted, or no longer at the
 * distributor): the walk then simply ends.
 */
export async function reportFromStages(
  ctx: AppContext,
  releaseId: number,
  origin: ReportOrigin,
  plan: ReportPlan,
): Promise<PlatformReport[] | null> {
  const at = isoNow(ctx.clock);
  try {
    return await ctx.db
      .transaction()
      .execute((trx: Db) => applyPlannedReports(trx, releaseId, at, origin, plan));
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/**
 * The platforms a takedown of the release would remove it from: the ones asked for, or every one
 * when none are named. A release is on a platform until that platform reports `taken_down` (one that
 * rejected it may be sent it again, so a takedown stops that too). A platform that is unknown, or
 * that the release is not on, is refused with `field: dsps`.
 */
export async function takedownPlatforms(
  db: Db,
  workspaceId: number,
  releaseId: number,
  requested: readonly string[] | null,
): Promise<PlatformKey[]> {
  const takenDown = new Set(
    (await releaseStages(db, workspaceId, releaseId))
      .filter((row) => row.stage === 'taken_down')
      .map((row) => row.dsp),
  );
  const on = PLATFORM_KEYS.filter((dsp) => !takenDown.has(dsp));
  if (requested === null) return on;
  for (const key of requested) {
    if (!isPlatformKey(key))
      throw errors.invalid('dsps', `"${key}" is not a platform key; GET /platforms lists them`);
    if (takenDown.has(key))
      throw errors.invalid('dsps', `Release ${releaseId} is already taken down from ${platformName(key)}`);
  }
  return on.filter((dsp) => requested.includes(dsp));
}
