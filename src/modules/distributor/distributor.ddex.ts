import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { enqueue, payloadId } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { batchTargets, writeReleaseBatches } from '../ddex/index.ts';
import { workspaceOwning } from '../labels/index.ts';
import { isPlatformKey, type PlatformKey } from '../platforms/index.ts';
import type { DistributorAdapter } from './distributor.adapter.ts';
import { reportFromStages } from './distributor.service.ts';

export const DDEX_BATCH_JOB = 'distributor.ddex.batch';

/** One platform's batch of one release; `end_date` makes it a takedown whose deals end that day. */
interface DdexBatchJob {
  release_id: number;
  dsp: PlatformKey;
  end_date: string | null;
}

function batchJobs(releaseId: number, dsps: readonly PlatformKey[], at: Date, endDate: string | null) {
  return dsps.map((dsp) => ({
    kind: DDEX_BATCH_JOB,
    payload: { release_id: releaseId, dsp, end_date: endDate } satisfies DdexBatchJob,
    runAt: at,
  }));
}

/**
 * `DISTRIBUTOR=ddex`: an approval queues a batch for each platform of DDEX_PLATFORMS, a takedown
 * a takedown batch for those of its platforms that are configured. A job per platform, so a
 * platform whose batch fails is retried alone.
 */
export function ddexDistributor(config: Config): DistributorAdapter {
  const configured = config.ddex.platforms.map((platform) => platform.key);
  return {
    async deliver(trx, release, at) {
      await enqueue(trx, batchJobs(release.id, configured, at, null), at);
    },
    async takeDown(trx, release, at, dsps) {
      const platforms = configured.filter((dsp) => dsps.includes(dsp));
      await enqueue(trx, batchJobs(release.id, platforms, at, at.toISOString().slice(0, 10)), at);
    },
  };
}

function batchJobOf(payload: unknown): DdexBatchJob {
  const { dsp, end_date: endDate } = (payload ?? {}) as Partial<Record<keyof DdexBatchJob, unknown>>;
  if (typeof dsp !== 'string' || !isPlatformKey(dsp)) throw new Error('job payload has no platform key');
  return {
    release_id: payloadId(payload, 'release_id'),
    dsp,
    end_date: typeof endDate === 'string' ? endDate : null,
  };
}

/**
 * Writes one platform's batch into DDEX_OUTBOX_URL. A delivered batch puts the platform at
 * `submitted`; what follows (accepted, live, rejected, taken down) the platform reports.
 */
export function ddexBatchHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const batch = batchJobOf(job.payload);
    const { outbox } = ctx.config.ddex;
    const workspace = await workspaceOwning(ctx.db, 'releases', batch.release_id);
    if (!outbox || !workspace) return undefined;
    const end = batch.end_date === null ? null : { endDate: batch.end_date };
    const targets = batchTargets(ctx.config, [batch.dsp]);
    const [written] = await writeReleaseBatches(ctx, outbox, workspace, batch.release_id, targets, end);
    if (written && !end) {
      await reportFromStages(ctx, batch.release_id, 'distributor', () => [
        {
          release_id: batch.release_id,
          dsp: batch.dsp,
          stage: 'submitted',
          detail: `DDEX batch ${written.batch_id} written`,
        },
      ]);
    }
    return undefined;
  };
}
