import type { AppContext } from '../../context.ts';
import { MemoryRateLimiter } from '../../http/rate-limiter.ts';
import { utcDay } from '../../lib/dates.ts';
import type { Visit } from './link-pages.visitor.ts';
import {
  addToCounterRows,
  addToLinkTotals,
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
} from './link-tally.ts';

/*
 * Views and clicks are added up in memory and written in one transaction per interval, off the
 * request path: a counted page then costs no write. What a process holds when it is killed
 * (SIGKILL, a crash) is lost: at most one interval's counts, or one batch's. SIGTERM and SIGINT
 * write everything before the process exits (the app's onClose).
 */

/** The longest counts wait in memory. */
const FLUSH_INTERVAL_MS = 250;
/** Views and clicks that start a write at once rather than at the end of the interval. */
export const FLUSH_BATCH = 500;
/** While the database is away, writes are retried at doubling waits up to this. */
const LONGEST_RETRY_MS = 5_000;
/**
 * Views (and clicks) one client address may add to one link a minute: the page still answers a
 * client past it, but a script reloading it inflates nothing. Per process, in memory.
 */
const COUNTED_PER_CLIENT_PER_MINUTE = 30;

/** Tells of writes that failed: counting has no log of its own (the database layer's way). */
function warn(message: string, error?: unknown): void {
  const reason = error === undefined ? '' : `: ${error instanceof Error ? error.message : String(error)}`;
  process.emitWarning(`${message}${reason}`, 'LabeldeskCounts');
}

/** A label's pending counts, as taken for one write. */
type Taken = [labelId: number, tally: Tally][];

/**
 * One write of the taken counts: the links' totals, targets, days and breakdowns, and the labels'
 * rollups, all or none. Sources and languages beyond a day's first VALUES_PER_DAY (stored ones first)
 * count as `other`, per link and again per label.
 */
async function writeTaken(ctx: AppContext, taken: Taken): Promise<void> {
  const parts = taken.map(([, tally]) => tally.rows());
  const rows = {
    links: parts.flatMap((part) => part.links),
    targets: parts.flatMap((part) => part.targets),
    days: parts.flatMap((part) => part.days),
    breakdowns: parts.flatMap((part) => part.breakdowns),
  };
  const labelIds = taken.map(([labelId]) => labelId).sort((a, b) => a - b);
  const days = [...new Set(rows.days.map((row) => row.day))];
  await ctx.db.transaction().execute(async (trx) => {
    await holdLabelCounters(trx, ctx.dialect, labelIds);
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

  constructor(private readonly ctx: AppContext) {}

  /** One person saw the page: the link's total, its day and the day's source, device, language and hour. */
  countView(link: LinkRef, visit: Visit, client: string): void {
    const at = this.ctx.clock.now();
    if (!this.withinClientLimit('view', link, client, at)) return;
    const hour = String(at.getUTCHours()).padStart(2, '0');
    this.tallyOf(link.label_id).addView(link, utcDay(at), [
      { dimension: 'source', value: visit.source },
      { dimension: 'device', value: visit.device },
      { dimension: 'language', value: visit.language },
      { dimension: 'hour', value: hour },
    ]);
    this.added();
  }

  /** One person followed a button: the link's, the target's and the day's clicks, by platform. */
  countClick(link: LinkRef, target: { id: number; platform: string }, client: string): void {
    const at = this.ctx.clock.now();
    if (!this.withinClientLimit('click', link, client, at)) return;
    this.tallyOf(link.label_id).addClick(link, target.id, utcDay(at), target.platform);
    this.added();
  }

  /** Writes the label's pending counts (after any write already under way): before a read of them. */
  flushLabel(labelId: number): Promise<void> {
    return this.write([labelId]);
  }

  flushAll(): Promise<void> {
    return this.write(null);
  }

  /** The app closes (SIGTERM drains into it): everything pending is written. */
  async close(): Promise<void> {
    this.stopTimer();
    try {
      await this.flushAll();
    } catch (error) {
      warn(`${this.pendingIncrements} views and clicks could not be written before the process exits`, error);
    }
  }

  private withinClientLimit(kind: 'view' | 'click', link: LinkRef, client: string, at: Date): boolean {
    return this.perClient.hit(`${kind} ${link.id} ${client}`, COUNTED_PER_CLIENT_PER_MINUTE, at.getTime())
      .allowed;
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
    // While the database is away the timer's retries pace the writes, however much comes in.
    if (this.pendingIncrements >= FLUSH_BATCH && this.failures === 0 && !this.batchWriteQueued) {
      this.batchWriteQueued = true;
      this.flushAll().catch(() => undefined);
      return;
    }
    this.startTimer();
  }

  private startTimer(): void {
    if (this.timer !== null || this.pendingIncrements === 0) return;
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

  private write(labelIds: readonly number[] | null): Promise<void> {
    const written = this.writes.then(() => this.writePending(labelIds));
    this.writes = written.catch(() => undefined);
    return written;
  }

  private async writePending(labelIds: readonly number[] | null): Promise<void> {
    if (labelIds === null) {
      this.batchWriteQueued = false;
      this.stopTimer();
    }
    const taken = this.take(labelIds);
    if (taken.length === 0) return;
    try {
      await writeTaken(this.ctx, taken);
      if (this.failures > 0) warn(`counting writes again after ${this.failures} failed attempts`);
      this.failures = 0;
    } catch (error) {
      this.putBack(taken);
      this.failures += 1;
      if (this.failures === 1) warn('views and clicks are kept in memory: writing them failed', error);
      throw error;
    } finally {
      this.startTimer();
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
