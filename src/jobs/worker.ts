import type { AppContext } from '../context.ts';
import type { Db } from '../db/database.ts';
import { readJson } from '../db/json-column.ts';
import {
  claimDueJobs,
  deleteJobs,
  insertJobOnce,
  type JobRow,
  type KindClaim,
  releaseJobs,
  rescheduleJob,
} from './jobs.store.ts';
import { createSlots, type KindLimits } from './slots.ts';

export type { KindLimits } from './slots.ts';

export interface Job {
  readonly id: number;
  readonly kind: string;
  /** Jobs of a kind with the same group share a part of its slots (a label's deliveries). */
  readonly group: string | null;
  readonly payload: unknown;
  /** Runs since the job last succeeded, this one included; a claim whose worker died counts. */
  readonly attempt: number;
  /** When this claim's lease ends. */
  readonly leaseUntil: string;
}

/**
 * Writes what runs of a job kind leave behind (deliveries' log entries). The runs settled together
 * hand it their entries in one call, so it can write them all in a few statements.
 */
export interface RecordWriter<T> {
  write(trx: Db, entries: readonly T[]): Promise<void>;
}

/** One run's entry for its writer; make it with `recordOf`, which keeps the two types matched. */
export interface RunRecord {
  readonly writer: RecordWriter<unknown>;
  readonly entry: unknown;
}

export function recordOf<T>(writer: RecordWriter<T>, entry: T): RunRecord {
  return { writer, entry };
}

/** What a run leaves behind. Without `runAgainAt` the job is done and removed. */
export interface JobOutcome {
  /** The run's own writes (a delivery's log entry): committed with the job's removal or rescheduling. */
  record?: RunRecord;
  runAgainAt?: Date;
  /** The next run's payload, when it changes. */
  payload?: unknown;
}
export type JobHandler = (job: Job) => Promise<JobOutcome | undefined>;

interface FinishedRun {
  job: Job;
  outcome: JobOutcome | undefined;
}

export interface RecurringJob {
  kind: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

export interface WorkerOptions {
  handlers: Readonly<Record<string, JobHandler>>;
  recurring?: readonly RecurringJob[];
  /** How long a claimed job stays with this worker before another may take it: longer than any run. */
  leaseMs: number;
  /** Jobs of a kind run side by side at most, for kinds without limits of their own (recurring jobs: 1). */
  concurrency?: number;
  limits?: Readonly<Record<string, KindLimits>>;
  /** How often an idle worker looks for due jobs. */
  idlePollMs?: number;
  onError?: (error: unknown, job: Job | null) => void;
}

/** How a worker that is told to stop treats the jobs it is running. */
export interface StopOptions {
  /** How long running jobs have to finish before the rest are given back; without it, as long as they take. */
  graceMs?: number;
  /**
   * Cuts the work of the jobs still running at the end of the grace short (closes their sockets),
   * before they are given back: no job runs in two processes at once.
   */
  interrupt?: () => void;
}

export interface JobWorker {
  /** Runs due jobs in the background until stopped. */
  start(): Promise<void>;
  /**
   * Stops taking jobs and waits for the running ones; at the end of `graceMs` the unfinished ones are
   * given back to the queue, due at once, and their outcome is no longer recorded (a handler's own
   * transaction may still commit: a job runs at least once, as after a crash).
   */
  stop(options?: StopOptions): Promise<void>;
  /** Runs every job that is due now, and those they make due now, then returns (for tests and commands). */
  drain(): Promise<void>;
}

/** A failing job waits longer each time, and is dropped after this many runs. */
const MAX_FAILED_RUNS = 10;
const MAX_RETRY_WAIT_MS = 3_600_000;

function payloadText(outcome: JobOutcome): string | undefined {
  return outcome.payload === undefined ? undefined : JSON.stringify(outcome.payload);
}

function jobOf(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    group: row.group_key,
    payload: readJson(row.payload),
    attempt: row.attempts,
    leaseUntil: row.run_at,
  };
}

/**
 * How often a kind's claim may pass over groups at their share; the wait is what another group's
 * job queued behind them may wait for its claim at most (more with a slow database).
 */
const PASS_OVER_MS = 50;

/** A finished run frees its slot for the next claim; claims wait for this many, to take them in one query. */
const CLAIM_BATCH = 16;

export function createWorker(ctx: AppContext, options: WorkerOptions): JobWorker {
  const concurrency = options.concurrency ?? 64;
  const idlePollMs = options.idlePollMs ?? 25;
  const onError = options.onError ?? (() => undefined);
  const handlers: Record<string, JobHandler> = { ...options.handlers };
  const recurringKinds = new Set((options.recurring ?? []).map((recurring) => recurring.kind));
  for (const recurring of options.recurring ?? []) {
    handlers[recurring.kind] = async () => {
      await recurring.run();
      return { runAgainAt: new Date(ctx.clock.now().getTime() + recurring.everyMs) };
    };
  }

  const kinds = Object.keys(handlers);
  const slots = createSlots(
    (kind) => options.limits?.[kind] ?? { concurrency: recurringKinds.has(kind) ? 1 : concurrency },
  );

  const running = new Map<Promise<void>, Job>();
  let stopped = true;
  /** Set when the running jobs were given back: their runs settle nothing any more. */
  let released = false;
  let claiming = false;
  /** The claim in progress, so that stopping waits for the jobs it brings too. */
  let pumping: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  /** When each kind's claim last passed over groups at their share (performance.now()). */
  const passedOverAt = new Map<string, number>();

  /**
   * A claim that passes over groups at their share reads past every job they have queued (all of
   * a burst of one label's deliveries); a kind is claimed that way at most every PASS_OVER_MS.
   */
  function worthClaiming(claim: KindClaim, atMs: number): boolean {
    if (!claim.rooms.some(({ room }) => room <= 0)) return true;
    if (atMs - (passedOverAt.get(claim.kind) ?? Number.NEGATIVE_INFINITY) < PASS_OVER_MS) return false;
    passedOverAt.set(claim.kind, atMs);
    return true;
  }

  /** Takes the due jobs that fit in the free slots, and holds their slots until they finish. */
  async function claim(ofKinds: readonly string[]): Promise<Job[]> {
    const limit = slots.freeIn(ofKinds);
    if (limit === 0) return [];
    const atMs = performance.now();
    const filter = slots.claimFilter(ofKinds);
    const claims = filter.kinds.filter((kindClaim) => worthClaiming(kindClaim, atMs));
    if (claims.length === 0) return [];
    const now = ctx.clock.now();
    const rows = await claimDueJobs(
      ctx.db,
      ctx.dialect,
      now.toISOString(),
      new Date(now.getTime() + options.leaseMs).toISOString(),
      limit,
      { kinds: claims },
    );
    const jobs = rows.map(jobOf);
    for (const job of jobs) slots.take(job.kind, job.group);
    return jobs;
  }

  /**
   * Runs a job in its slot. The slot is freed as soon as the handler is done, before its outcome is
   * written: the job stays claimed until then, so nobody else runs it, and the next claim need not
   * wait for a commit (settling many runs together takes longer than settling one).
   */
  async function runHeld(job: Job): Promise<void> {
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      slots.release(job.kind, job.group);
      claimFreedSlots(job.kind, job.group);
    };
    try {
      await runJob(job, free);
    } finally {
      free();
    }
  }

  async function runJob(job: Job, free: () => void): Promise<void> {
    const handler = handlers[job.kind];
    let outcome: JobOutcome | undefined;
    try {
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      outcome = await handler(job);
    } catch (error) {
      free();
      return failed(job, error);
    }
    free();
    await settle({ job, outcome });
  }

  /**
   * Claims again once a batch's worth of slots is free for the kind, and for the group of the run
   * that freed one: a group that holds its whole share would otherwise claim one job per finished
   * run. Another group's jobs are claimed by its own finished runs, or by the next poll.
   */
  function claimFreedSlots(kind: string, group: string | null): void {
    const { concurrency, perGroup } = slots.limitsOf(kind);
    const batch = Math.min(CLAIM_BATCH, concurrency);
    if (stopped || slots.free(kind) < batch) return;
    if (perGroup !== undefined && slots.freeFor(kind, group) < Math.ceil(Math.min(batch, perGroup) / 2))
      return;
    void pump(kind);
  }

  async function failed(job: Job, error: unknown): Promise<void> {
    if (released) return;
    onError(error, job);
    await settleFailedJob(job).catch((settleError: unknown) => onError(settleError, job));
  }

  /**
   * Finished runs are settled in one transaction at a time: those that finish while one is being
   * written (or in the same turn of the event loop) go together in the next. One commit for many
   * jobs instead of two for each, their records written together, and the busier the worker the
   * larger the batches.
   */
  let unsettled: FinishedRun[] = [];
  let writing: Promise<void> = Promise.resolve();
  let nextBatch: Promise<void> | null = null;

  function settle(run: FinishedRun): Promise<void> {
    if (released) return Promise.resolve();
    unsettled.push(run);
    nextBatch ??= Promise.all([writing, new Promise<void>((resolve) => setImmediate(resolve))]).then(() => {
      const batch = unsettled;
      unsettled = [];
      nextBatch = null;
      writing = settleBatch(batch);
      return writing;
    });
    return nextBatch;
  }

  async function settleBatch(batch: FinishedRun[]): Promise<void> {
    try {
      await ctx.db.transaction().execute(async (trx) => {
        const entries = new Map<RecordWriter<unknown>, unknown[]>();
        for (const { outcome } of batch) {
          if (!outcome?.record) continue;
          const { writer, entry } = outcome.record;
          const ofWriter = entries.get(writer);
          if (ofWriter) ofWriter.push(entry);
          else entries.set(writer, [entry]);
        }
        for (const [writer, ofWriter] of entries) await writer.write(trx, ofWriter);
        const done: Job[] = [];
        for (const { job, outcome } of batch) {
          if (outcome?.runAgainAt === undefined) done.push(job);
          else {
            await rescheduleJob(trx, job, {
              runAt: outcome.runAgainAt.toISOString(),
              payload: payloadText(outcome),
              resetAttempts: true,
            });
          }
        }
        await deleteJobs(trx, done);
      });
    } catch (error) {
      // One run's bad write (a log entry for a webhook deleted meanwhile) must not undo the others'.
      const [only] = batch;
      if (batch.length === 1 && only) return failed(only.job, error);
      for (const run of batch) await settleBatch([run]);
    }
  }

  /** Tries again later, waiting longer each time; gives up after a while, except on recurring jobs. */
  async function settleFailedJob(job: Job): Promise<void> {
    const recurring = recurringKinds.has(job.kind);
    if (job.attempt >= MAX_FAILED_RUNS && !recurring) return deleteJobs(ctx.db, [job]);
    const waitMs = Math.min(1000 * 2 ** Math.min(job.attempt, 30), MAX_RETRY_WAIT_MS);
    await rescheduleJob(ctx.db, job, { runAt: new Date(ctx.clock.now().getTime() + waitMs).toISOString() });
  }

  function track(job: Job): void {
    const run = runHeld(job).finally(() => running.delete(run));
    running.set(run, job);
  }

  /** Whether `finished` resolved within `graceMs` (always, without a grace). */
  async function withinGrace(finished: Promise<true>, graceMs: number | undefined): Promise<boolean> {
    if (graceMs === undefined) return finished;
    let timeout: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((resolve) => {
      timeout = setTimeout(() => resolve(false), graceMs);
    });
    try {
      return await Promise.race([finished, expired]);
    } finally {
      clearTimeout(timeout);
    }
  }

  async function releaseRunning(interrupt: (() => void) | undefined): Promise<void> {
    released = true;
    const held = [...running.values()];
    interrupt?.();
    await releaseJobs(ctx.db, held, ctx.clock.now().toISOString()).catch((error: unknown) =>
      onError(error, null),
    );
  }

  /** Claims that failed in a row (the database is away): polls slow down, and the log with them. */
  let failedClaims = 0;

  function pollLater(): void {
    if (timer) clearTimeout(timer);
    const waitMs = failedClaims === 0 ? idlePollMs : Math.min(idlePollMs * 2 ** failedClaims, 30_000);
    timer = setTimeout(() => void pump(), waitMs);
    timer.unref();
  }

  /**
   * The kinds a claim was asked for and not yet made: a finished run asks for its own kind, the
   * poll for every kind. Asked for while a claim runs, it is made right after that one.
   */
  let wanted: Set<string> | 'all' | null = null;

  function pump(kind?: string): Promise<void> {
    if (stopped) return Promise.resolve();
    if (kind === undefined || wanted === 'all') wanted = 'all';
    else if (wanted === null) wanted = new Set([kind]);
    else wanted.add(kind);
    if (claiming) return pumping;
    pumping = claimAndStart();
    return pumping;
  }

  /**
   * Claims what was asked for, and again while more was asked for meanwhile. A claim that found
   * fewer jobs than free slots is not repeated at once: the next finished run or poll claims again,
   * so a queue whose due jobs all belong to groups at their share is not read over and over. Only a
   * claim of every kind sets the next poll, so runs of one kind finishing all the time do not put off
   * the other kinds' turn.
   */
  async function claimAndStart(): Promise<void> {
    claiming = true;
    let polled = false;
    try {
      while (wanted !== null && !stopped) {
        const ofKinds = wanted === 'all' ? kinds : [...wanted];
        polled ||= wanted === 'all';
        wanted = null;
        const jobs = await claim(ofKinds);
        failedClaims = 0;
        for (const job of jobs) track(job);
      }
    } catch (error) {
      onError(error, null);
      failedClaims += 1;
      polled = true;
    } finally {
      claiming = false;
    }
    if (!stopped && polled) pollLater();
  }

  async function addRecurringJobs(): Promise<void> {
    const now = ctx.clock.now().toISOString();
    for (const recurring of options.recurring ?? []) {
      await insertJobOnce(ctx.db, {
        kind: recurring.kind,
        payload: '{}',
        run_at: now,
        unique_key: recurring.kind,
        created_at: now,
      });
    }
  }

  return {
    async start() {
      await addRecurringJobs();
      stopped = false;
      void pump();
    },
    async stop(options = {}) {
      stopped = true;
      if (timer) clearTimeout(timer);
      const finished = pumping.then(() => Promise.allSettled([...running.keys()])).then(() => true as const);
      if (!(await withinGrace(finished, options.graceMs))) await releaseRunning(options.interrupt);
    },
    async drain() {
      await addRecurringJobs();
      for (;;) {
        const jobs = await claim(kinds);
        if (jobs.length === 0) return;
        await Promise.all(jobs.map(runHeld));
      }
    },
  };
}
