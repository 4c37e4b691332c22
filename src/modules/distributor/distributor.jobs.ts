import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { DspStage } from '../../db/values.ts';
import { payloadId } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../platforms/index.ts';
import type { PlatformReport } from './distributor.reports.ts';
import { reportFromStages } from './distributor.service.ts';

export const SIMULATED_STEP_JOB = 'distributor.simulated.step';
export const SIMULATED_TAKEDOWN_JOB = 'distributor.simulated.takedown';
export const SANDBOX_LIVE_JOB = 'distributor.sandbox.live';

/** Reasons real platforms give when they refuse a release. */
const REJECTION_DETAILS = [
  'Cover art does not meet the platform’s artwork guidelines',
  'Metadata does not match the audio: check titles and artist names',
  'The audio matches content already delivered by another rights holder',
  'Release date is too close for this platform’s ingestion window',
];

/** Bytes fixed per release and platform, so a rerun of a step makes the same choices. */
function choiceBytes(releaseId: number, dsp: PlatformKey): Buffer {
  return createHash('sha256').update(`${releaseId}:${dsp}`).digest();
}

function nextSimulatedStage(
  releaseId: number,
  dsp: PlatformKey,
  current: string | undefined,
  rejectRate: number,
): Pick<PlatformReport, 'stage' | 'detail'> | null {
  switch (current) {
    case undefined:
      return { stage: 'submitted', detail: null };
    case 'submitted': {
      const bytes = choiceBytes(releaseId, dsp);
      if (bytes.readUInt32BE(0) / 2 ** 32 < rejectRate) {
        return {
          stage: 'rejected',
          detail: REJECTION_DETAILS[(bytes[4] ?? 0) % REJECTION_DETAILS.length] ?? null,
        };
      }
      return { stage: 'accepted', detail: null };
    }
    case 'accepted':
      return { stage: 'live', detail: null };
    default:
      return null;
  }
}

const STILL_MOVING: readonly string[] = ['submitted', 'accepted'] satisfies DspStage[];

/** One step of the simulated distributor: every platform moves one stage; again after DISTRIBUTOR_STEP. */
export function simulatedStepHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const releaseId = payloadId(job.payload, 'release_id');
    const reports = await reportFromStages(ctx, releaseId, 'distributor', (stages) =>
      PLATFORM_KEYS.flatMap((dsp) => {
        const next = nextSimulatedStage(releaseId, dsp, stages.get(dsp), ctx.config.distributorRejectRate);
        return next ? [{ release_id: releaseId, dsp, ...next }] : [];
      }),
    );
    if (!reports?.some((report) => STILL_MOVING.includes(report.stage))) return undefined;
    return { runAgainAt: new Date(ctx.clock.now().getTime() + ctx.config.distributorStepMs) };
  };
}

/** A takedown order: the platforms named; every one when absent (orders queued before they were named). */
export interface SimulatedTakedown {
  release_id: number;
  dsps?: readonly PlatformKey[];
}

/** The simulated distributor carries out a takedown: each platform of the order reports `taken_down`. */
export function simulatedTakedownHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const releaseId = payloadId(job.payload, 'release_id');
    const dsps = (job.payload as SimulatedTakedown).dsps ?? PLATFORM_KEYS;
    await reportFromStages(ctx, releaseId, 'distributor', (stages) =>
      dsps
        .filter((dsp) => stages.get(dsp) !== 'taken_down')
        .map((dsp) => ({
          release_id: releaseId,
          dsp,
          stage: 'taken_down',
          detail: 'Removed at the label’s request',
        })),
    );
    return undefined;
  };
}

/** A sandbox release goes live on every platform at once, SANDBOX_LIVE_AFTER after its submission. */
export function sandboxLiveHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const releaseId = payloadId(job.payload, 'release_id');
    await reportFromStages(ctx, releaseId, 'sandbox', (stages) =>
      PLATFORM_KEYS.filter((dsp) => stages.get(dsp) !== 'live').map((dsp) => ({
        release_id: releaseId,
        dsp,
        stage: 'live',
        detail: null,
      })),
    );
    return undefined;
  };
}
