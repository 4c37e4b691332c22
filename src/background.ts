import type { AppContext } from './context.ts';
import { deleteIdempotencyRowsBefore } from './http/idempotency.store.ts';
import { createWorker, type Job, type JobWorker, type KindLimits } from './jobs/worker.ts';
import {
  DDEX_BATCH_JOB,
  ddexBatchHandler,
  pruneReportSignatures,
  SANDBOX_LIVE_JOB,
  SIMULATED_STEP_JOB,
  SIMULATED_TAKEDOWN_JOB,
  sandboxLiveHandler,
  simulatedStepHandler,
  simulatedTakedownHandler,
} from './modules/distributor/index.ts';
import { DELIVERY_JOB, EVENT_RETENTION_MS, pruneExpiredEvents } from './modules/events/index.ts';
import { MEDIA_COLLECT_JOB, mediaCollectionHandler } from './modules/media/index.ts';
import {
  audioAnalysisHandler,
  closeAudioAnalysis,
  MODERATION_JOB,
  reviewHandler,
} from './modules/moderation/index.ts';
import { AUDIO_ANALYSIS_JOB } from './modules/tracks/index.ts';
import { createWebhookSender, deleteAttemptsBefore, deliveryHandler } from './modules/webhooks/index.ts';

const HOUR_MS = 3_600_000;
const IDEMPOTENCY_RETENTION_MS = 24 * HOUR_MS;
/** Deliveries a server runs at once, mostly waiting on receivers. */
const DEFAULT_CONCURRENCY = 64;
/**
 * A label's deliveries hold at most this part of the delivery slots: a label whose receiver answers
 * only after the timeout leaves the other three quarters to the other labels.
 */
const LABEL_SHARE = 1 / 4;
/** Sockets to one receiver host at most, across labels, as a part of the delivery slots. */
const HOST_SHARE = 1 / 2;
/**
 * The other kinds' own slots, so that none waits behind another: the moderation review and the
 * analysis of each uploaded audio file (both analyse in the audio pool, whose threads bound them),
 * the simulated distributor's stages, the sandbox's go-live timer and the DDEX distributor's
 * batches (two at a time: they copy audio files).
 */
const KIND_CONCURRENCY = {
  [MODERATION_JOB]: 4,
  [AUDIO_ANALYSIS_JOB]: 4,
  [SIMULATED_STEP_JOB]: 8,
  [SIMULATED_TAKEDOWN_JOB]: 8,
  [SANDBOX_LIVE_JOB]: 8,
  [DDEX_BATCH_JOB]: 2,
  [MEDIA_COLLECT_JOB]: 1,
};

export interface BackgroundOptions {
  /** Trusted roots for webhook receivers in place of the system's (tests). */
  ca?: string | Buffer;
  /** Deliveries run side by side at most (64); no other kind runs more than this either. */
  concurrency?: number;
  onError?: (error: unknown, job: Job | null) => void;
}

export interface Background {
  worker: JobWorker;
  /**
   * Stops the worker and closes the connections it holds. With `graceMs`, jobs still running by then
   * have their deliveries' sockets closed and are given back to the queue for another worker.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

function before(ctx: AppContext, ms: number): string {
  return new Date(ctx.clock.now().getTime() - ms).toISOString();
}

/**
 * Everything that runs off the request path, through the durable job queue, each kind in slots of
 * its own (a label's deliveries in a share of the delivery slots): webhook deliveries, the
 * automated moderation review, the analysis of each uploaded audio file, the simulated
 * distributor's platform stages, the sandbox's go-live timer, the collection of stored files an
 * operator's command let go, and the hourly pruning of idempotency records (24 hours), inbound
 * report signatures (once they are too old to verify), events and delivery logs (90 days).
 */
export function createBackground(ctx: AppContext, options: BackgroundOptions = {}): Background {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const share = (part: number) => Math.max(1, Math.ceil(concurrency * part));
  const sender = createWebhookSender(ctx.config, ctx.resolveHost, {
    ca: options.ca,
    maxSockets: concurrency,
    maxSocketsPerHost: share(HOST_SHARE),
  });
  const limits: Record<string, KindLimits> = {
    [DELIVERY_JOB]: { concurrency, perGroup: share(LABEL_SHARE) },
  };
  for (const [kind, slots] of Object.entries(KIND_CONCURRENCY)) {
    limits[kind] = { concurrency: Math.min(slots, concurrency) };
  }
  const worker = createWorker(ctx, {
    handlers: {
      [DELIVERY_JOB]: deliveryHandler(ctx, sender),
      [MODERATION_JOB]: reviewHandler(ctx),
      [AUDIO_ANALYSIS_JOB]: audioAnalysisHandler(ctx),
      [SIMULATED_STEP_JOB]: simulatedStepHandler(ctx),
      [SIMULATED_TAKEDOWN_JOB]: simulatedTakedownHandler(ctx),
      [SANDBOX_LIVE_JOB]: sandboxLiveHandler(ctx),
      [DDEX_BATCH_JOB]: ddexBatchHandler(ctx),
      [MEDIA_COLLECT_JOB]: mediaCollectionHandler(ctx),
    },
    recurring: [
      {
        kind: 'prune.idempotency',
        everyMs: HOUR_MS,
        run: () => deleteIdempotencyRowsBefore(ctx.db, before(ctx, IDEMPOTENCY_RETENTION_MS)),
      },
      { kind: 'prune.events', everyMs: HOUR_MS, run: () => pruneExpiredEvents(ctx.db, ctx.clock) },
      {
        kind: 'prune.distributor_signatures',
        everyMs: HOUR_MS,
        run: () => pruneReportSignatures(ctx),
      },
      {
        kind: 'prune.webhook_attempts',
        everyMs: HOUR_MS,
        run: () => deleteAttemptsBefore(ctx.db, before(ctx, EVENT_RETENTION_MS)),
      },
    ],
    // A run lasts at most one receiver timeout plus a little database work; a job held longer
    // than this belonged to a worker that died, and another takes it.
    leaseMs: 2 * ctx.config.webhookTimeoutMs + 5000,
    limits,
    onError: options.onError,
  });
  return {
    worker,
    async close(options = {}) {
      await worker.stop({ graceMs: options.graceMs, interrupt: () => sender.close() });
      sender.close();
      await closeAudioAnalysis();
    },
  };
}
