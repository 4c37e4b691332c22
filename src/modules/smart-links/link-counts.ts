import type { AppContext } from '../../context.ts';
import { MemoryRateLimiter } from '../../http/rate-limiter.ts';
import { utcDay } from '../../lib/dates.ts';
import { RedisCounts, type TakenBatch } from './link-counts.redis.ts';
import type { Visit } from './link-pages.visitor.ts';
import {
  addToCounterRows,
  addToLinkTotals,
  claimBatches,
  forgetBatchesBefore,
  holdLabelCounters,
  storedLabelValues,
  storedLinkValues,
} from './link-stats.store.ts';
import {
  breakdownKey,
  type CountRows,
  capValues,
  type LinkRef,
  labelBreakdownKey,
  labelRows,
  Tally,
  type TallyRows,
} from './link-tally.ts';

/*
 * Views and clicks are added up in memory and written in one transaction per interval, off the
 * request path: a counted page then costs no write. What a process holds when it is killed
 * (SIGKILL, a crash) is lost: at most one interval's counts, or one batch's. SIGTERM and SIGINT
 * write everything before the process exits (the app's onClose).
 *
 * With REDIS_URL, the processes behind one address share the per-client limit and their counts:
 * each interval moves this process's counts into Redis, then takes the labels' counts of every
 * process from it and writes them in one transaction (link-counts.redis.ts). A batch taken by a
 * process that dies before it is written is recovered by another after ABANDONED_AFTER_MS, and
 * applied once. SIGKILL still loses what the killed process held in memory, and only that.
 */

/** The longest counts wait in memory. */
const FLUSH_INTERVAL_MS = 250;
/** Views and clicks that start a write at once rather than at the end of the interval. */
export const FLUSH_BATCH = 500;
/** While the database is away, writes are retried at doubling waits up to this. */
const LONGEST_RETRY_MS = 5_000;
/**
 * Views (and clicks) one client address may add to one link a minute: the page still answers a
 * client past it, but a script reloading it inflates nothing. Per process, in memory; with
 * REDIS_URL, one budget across the processes.
 */
const COUNTED_PER_CLIENT_PER_MINUTE = 30;
/** How often a process looks in Redis for batches no one finished, and counts no one took. */
const RECOVERY_EVERY_MS = 5_000;
/** A batch taken this long ago is abandoned: a write takes well under a second. */
export const ABANDONED_AFTER_MS = 30_000;
/** Tokens of applied batches are kept this long: far longer than a batch can wait for recovery. */
const BATCH_TOKENS_KEPT_MS = 24 * 60 * 60 * 1000;
/** How often a write also prunes the tokens. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Tells of writes that failed: counting has no log of its own (the database layer's way). */
function warn(message: string, error?: unknown): void {
  const reason = error === undefined ? '' : `: ${error instanceof Error ? error.message : String(error)}`;
  process.emitWarning(`${message}${reason}`, 'LabeldeskCounts');
}

/** A view or click waiting for the shared per-client limit, and how to count it. */
interface Unchecked {
  bucket: string;
  nowMs: number;
  count: () => void;
}

/** A label's pending counts, as taken from memory for one write. */
type Taken = [labelId: number, tally: Tally][];

/** A label's counts for one write; those taken from Redis carry the token their write records. */
export interface Batch {
  labelId: number;
  rows: TallyRows;
  token: string | null;
}

const batchesOf = (taken: Taken): Batch[] =>
  taken.map(([labelId, tally]) => ({ labelId, rows: tally.rows(), token: null }));

/**
 * One write of the batches: the links' totals, targets, days and breakdowns, and the labels'
 * rollups, all or none. A batch whose token was applied before adds nothing. Sources and languages
 * beyond a day's first VALUES_PER_DAY (stored ones first) count as `other`, per link and again per
 * label. `pruneBefore` also forgets the tokens of batches applied before it.
 */
export async function writeTaken(
  ctx: AppContext,
  batches: readonly Batch[],
  pruneBefore: Date | null = null,
): Promise<void> {
  const labelIds = [...new Set(batches.map((batch) => batch.labelId))].sort((a, b) => a - b);
  const tokens = batches.flatMap((batch) => (batch.token === null ? [] : [batch.token]));
  await ctx.db.transaction().execute(async (trx) => {
    await holdLabelCounters(trx, ctx.dialect, labelIds);
    const claimed = await claimBatches(trx, tokens, ctx.clock.now().toISOString());
    if (pruneBefore) await forgetBatchesBefore(trx, pruneBefore.toISOString());
    const parts = batches
      .filter((batch) => batch.token === null || claimed.has(batch.token))
      .map((batch) => batch.rows);
    if (parts.length === 0) return;
    const rows = {
      links: parts.flatMap((part) => part.links),
      targets: parts.flatMap((part) => part.targets),
      days: parts.flatMap((part) => part.days),
      breakdowns: parts.flatMap((part) => part.breakdowns),
    };
    const days = [...new Set(rows.days.map((row) => row.day))];
    const live = new Set(await addToLinkTotals(trx, rows.links));
    const ofLiveLinks = <T extends { link_id: number }>(list: T[]) =>
      list.filter((row) => live.has(row.link_id));
    const linkDays = ofLiveLinks(rows.days);
    const breakdowns = capValues(
      ofLiveLinks(rows.breakdowns),
      (row) => row.link_id,
      await storedLinkValues(trx, [...live], days),
      breakdownKey,
    );
    const label = labelRows(linkDays, breakdowns);
    const written: Omit<CountRows, 'links'> = {
      targets: ofLiveLinks(rows.targets),
      days: linkDays,
      breakdowns,
      labelDays: label.labelDays,
      labelBreakdowns: capValues(
        label.labelBreakdowns,
        (row) => row.label_id,
        await storedLabelValues(trx, labelIds, days),
        labelBreakdownKey,
      ),
    };
    await addToCounterRows(trx, written);
  });
}

/** One process's pending views and clicks, per label, and the timer that writes them. */
export class LinkCounts {
  private readonly pending = new Map<number, Tally>();
  private pendingIncrements = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Writes run one at a time, in the order they were asked for. */
  private writes: Promise<void> = Promise.resolve();
  private batchWriteQueued = false;
  private failures = 0;
  private readonly perClient = new MemoryRateLimiter();
  /** With REDIS_URL: the limit and the counts shared with the other processes. */
  readonly shared: RedisCounts | null;
  /** With REDIS_URL, views and clicks waiting for the shared limit: the next write decides them. */
  private unchecked: Unchecked[] = [];
  private sharedLimitAway = false;
  private sharedCountsAway = false;
  private recovery: NodeJS.Timeout | null = null;
  private nextPruneMs = 0;

  constructor(private readonly ctx: AppContext) {
    this.shared = ctx.config.redisUrl ? new RedisCounts(ctx.config.redisUrl, ctx.db) : null;
    if (this.shared) {
      this.recovery = setInterval(() => this.recoverAbandoned().catch(() => undefined), RECOVERY_EVERY_MS);
      this.recovery.unref();
    }
  }

  /** One person saw the page: the link's total, its day and the day's source, device, language and hour. */
  countView(link: LinkRef, visit: Visit, client: string): void {
    const at = this.ctx.clock.now();
    const hour = String(at.getUTCHours()).padStart(2, '0');
    this.withinClientLimit('view', link, client, at, () => {
      this.tallyOf(link.label_id).addView(link, utcDay(at), [
        { dimension: 'source', value: visit.source },
        { dimension: 'device', value: visit.device },
        { dimension: 'language', value: visit.language },
        { dimension: 'hour', value: hour },
      ]);
      this.added();
    });
  }

  /** One person followed a button: the link's, the target's and the day's clicks, by platform. */
  countClick(link: LinkRef, target: { id: number; platform: string }, client: string): void {
    const at = this.ctx.clock.now();
    this.withinClientLimit('click', link, client, at, () => {
      this.tallyOf(link.label_id).addClick(link, target.id, utcDay(at), target.platform);
      this.added();
    });
  }

  /**
   * Writes the label's pending counts (after any write already under way): before a read of them.
   * With REDIS_URL, those of every process that reached Redis.
   */
  async flushLabel(labelId: number): Promise<void> {
    await this.counted();
    return this.write([labelId]);
  }

  async flushAll(): Promise<void> {
    await this.counted();
    return this.write(null);
  }

  /**
   * The app closes (SIGTERM drains into it): everything pending is written. With REDIS_URL, every
   * label's counts in Redis too, so that the last process to stop leaves none there; if Redis is
   * away, this process's counts go to the database directly.
   */
  async close(): Promise<void> {
    this.stopTimer();
    if (this.recovery !== null) clearInterval(this.recovery);
    const shared = this.shared;
    try {
      await this.flushAll();
      if (shared) await this.chain(async () => this.writeShared(shared, await shared.pendingLabels()));
    } catch (error) {
      // With Redis away, flushAll has written this process's counts to the database directly.
      if (this.pendingIncrements > 0) {
        warn(
          `${this.pendingIncrements} views and clicks could not be written before the process exits`,
          error,
        );
      }
    }
    await shared?.close();
  }

  /**
   * Writes what Redis holds that no live process will: batches whose taker died before it deleted
   * them (applied once, by their token), and labels' counts that no process took.
   */
  recoverAbandoned(): Promise<void> {
    const shared = this.shared;
    if (!shared) return Promise.resolve();
    return this.chain(() =>
      this.attempt('counts in Redis could not be recovered', async () => {
        const now = this.ctx.clock.now().getTime();
        const abandoned = await this.writeBatches(shared, await shared.abandoned(now - ABANDONED_AFTER_MS));
        const untaken = await this.writeShared(shared, await shared.pendingLabels());
        return abandoned || untaken;
      }),
    );
  }

  /**
   * Counts the view or click (`count`) if its client is within the limit: at once in memory, or,
   * with REDIS_URL, when the next write decides every waiting one in one round trip.
   */
  private withinClientLimit(
    kind: 'view' | 'click',
    link: LinkRef,
    client: string,
    at: Date,
    count: () => void,
  ): void {
    const bucket = `${kind} ${link.id} ${client}`;
    if (!this.shared) {
      if (this.perClient.hit(bucket, COUNTED_PER_CLIENT_PER_MINUTE, at.getTime()).allowed) count();
      return;
    }
    this.unchecked.push({ bucket, nowMs: at.getTime(), count });
    this.scheduleWrite();
  }

  /**
   * Counts the views and clicks that wait for the shared limit, those within it. Redis away, they
   * all count: a lost view is worse than one past the limit.
   */
  private async counted(): Promise<void> {
    const shared = this.shared;
    const unchecked = this.unchecked;
    if (!shared || unchecked.length === 0) return;
    this.unchecked = [];
    let allowed: boolean[] | null = null;
    try {
      allowed = await shared.withinClientLimits(unchecked, COUNTED_PER_CLIENT_PER_MINUTE);
      this.sharedLimitAway = false;
    } catch (error) {
      if (!this.sharedLimitAway) warn('views and clicks are counted without the per-client limit', error);
      this.sharedLimitAway = true;
    }
    unchecked.forEach((visit, i) => {
      if (allowed?.[i] ?? true) visit.count();
    });
  }

  private tallyOf(labelId: number): Tally {
    let tally = this.pending.get(labelId);
    if (!tally) {
      tally = new Tally();
      this.pending.set(labelId, tally);
    }
    return tally;
  }

  private added(): void {
    this.pendingIncrements += 1;
    this.scheduleWrite();
  }

  /** Views and clicks that wait to be written, counted or still to be decided. */
  private waiting(): number {
    return this.pendingIncrements + this.unchecked.length;
  }

  private scheduleWrite(): void {
    // While the database is away the timer's retries pace the writes, however much comes in.
    if (this.waiting() >= FLUSH_BATCH && this.failures === 0 && !this.batchWriteQueued) {
      this.batchWriteQueued = true;
      this.flushAll().catch(() => undefined);
      return;
    }
    this.startTimer();
  }

  private startTimer(): void {
    if (this.timer !== null || this.waiting() === 0) return;
    const wait = Math.min(FLUSH_INTERVAL_MS * 2 ** this.failures, LONGEST_RETRY_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushAll().catch(() => undefined);
    }, wait);
    // Pending counts never keep a process alive: an exit without close is a crash, and loses them.
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Runs `step` after the writes already asked for; a failed one does not stop those after it. */
  private chain(step: () => Promise<unknown>): Promise<void> {
    const done = this.writes.then(async () => {
      await step();
    });
    this.writes = done.catch(() => undefined);
    return done;
  }

  private write(labelIds: readonly number[] | null): Promise<void> {
    return this.chain(async () => {
      if (labelIds === null) {
        this.batchWriteQueued = false;
        this.stopTimer();
      }
      try {
        if (this.shared) await this.writeThroughRedis(this.shared, labelIds);
        else await this.writeMemory(labelIds);
      } finally {
        this.startTimer();
      }
    });
  }

  /** Writes the labels' counts in memory to the database; kept in memory if that fails. */
  private writeMemory(labelIds: readonly number[] | null): Promise<boolean> {
    return this.attempt('views and clicks are kept in memory: writing them failed', async () => {
      const taken = this.take(labelIds);
      if (taken.length === 0) return false;
      await this.putBackIfFailed(taken, () => writeTaken(this.ctx, batchesOf(taken)));
      return true;
    });
  }

  /**
   * Moves the labels' counts in memory to Redis, then writes them and what other processes added to
   * the same labels. With Redis away, this process's counts go to the database directly, so that
   * counting and the statistics' reads go on without it.
   */
  private async writeThroughRedis(shared: RedisCounts, labelIds: readonly number[] | null): Promise<void> {
    const taken = this.take(labelIds);
    if (!(await this.movedToRedis(shared, taken))) {
      await this.writeMemory(labelIds);
      return;
    }
    await this.writeShared(shared, labelIds ?? taken.map(([labelId]) => labelId));
  }

  /** False when Redis did not take them: they are back in memory, and the first failure is told. */
  private async movedToRedis(shared: RedisCounts, taken: Taken): Promise<boolean> {
    if (taken.length === 0) return true;
    try {
      await shared.add(taken.map(([labelId, tally]) => ({ labelId, rows: tally.rows() })));
      this.sharedCountsAway = false;
      return true;
    } catch (error) {
      this.putBack(taken);
      if (!this.sharedCountsAway) warn('views and clicks go to the database directly: Redis is away', error);
      this.sharedCountsAway = true;
      return false;
    }
  }

  /** Takes the labels' counts from Redis and writes them; a failed write leaves them for recovery. */
  private async writeShared(shared: RedisCounts, labelIds: readonly number[]): Promise<boolean> {
    if (labelIds.length === 0) return false;
    const batches = await shared.take(labelIds, this.ctx.clock.now().getTime());
    return this.writeBatches(shared, batches);
  }

  private writeBatches(shared: RedisCounts, batches: readonly TakenBatch[]): Promise<boolean> {
    return this.attempt('views and clicks taken from Redis are left there: writing them failed', async () => {
      if (batches.length === 0) return false;
      await writeTaken(this.ctx, batches, this.pruneBefore());
      await shared.finish(batches);
      return true;
    });
  }

  /** Once in PRUNE_EVERY_MS, the time before which applied tokens are forgotten. */
  private pruneBefore(): Date | null {
    const now = this.ctx.clock.now().getTime();
    if (now < this.nextPruneMs) return null;
    this.nextPruneMs = now + PRUNE_EVERY_MS;
    return new Date(now - BATCH_TOKENS_KEPT_MS);
  }

  /**
   * Runs one step of a write (it answers whether there was anything to write): a failure doubles the
   * wait before the timer's next try, and is told once until a step succeeds again.
   */
  private async attempt(failure: string, step: () => Promise<boolean>): Promise<boolean> {
    try {
      if (!(await step())) return false;
      if (this.failures > 0) warn(`counting writes again after ${this.failures} failed attempts`);
      this.failures = 0;
      return true;
    } catch (error) {
      this.failures += 1;
      if (this.failures === 1) warn(failure, error);
      throw error;
    }
  }

  private async putBackIfFailed(taken: Taken, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.putBack(taken);
      throw error;
    }
  }

  private take(labelIds: readonly number[] | null): Taken {
    const taken: Taken = [];
    for (const labelId of labelIds ?? [...this.pending.keys()]) {
      const tally = this.pending.get(labelId);
      if (!tally) continue;
      this.pending.delete(labelId);
      this.pendingIncrements -= tally.increments;
      taken.push([labelId, tally]);
    }
    return taken;
  }

  private putBack(taken: Taken): void {
    for (const [labelId, tally] of taken) {
      this.tallyOf(labelId).addAll(tally);
      this.pendingIncrements += tally.increments;
    }
  }
}

const countsOfContext = new WeakMap<AppContext, LinkCounts>();

/** The app's counts: one per context, so that the pages, the statistics and the close share them. */
export function linkCountsOf(ctx: AppContext): LinkCounts {
  let counts = countsOfContext.get(ctx);
  if (!counts) {
    counts = new LinkCounts(ctx);
    countsOfContext.set(ctx, counts);
  }
  return counts;
}

/**
 * What this process counted for the workspace and has not written yet, written now: a read of
 * statistics then includes a view its client saw a moment ago.
 */
export function flushPendingCounts(ctx: AppContext, workspaceId: number): Promise<void> {
  return linkCountsOf(ctx).flushLabel(workspaceId);
}
