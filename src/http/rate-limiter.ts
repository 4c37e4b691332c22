import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import type { MaybePromise } from '../lib/maybe-promise.ts';

export const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the oldest request counted in the window leaves it (ms since epoch). */
  resetAtMs: number;
}

/**
 * A sliding one-minute window per bucket: a request is allowed while fewer than `limit` requests
 * were allowed in the 60 seconds before it. Exact, not an approximation from fixed windows.
 */
export interface RateLimiter {
  hit(bucket: string, limit: number, nowMs: number): MaybePromise<RateDecision>;
  close(): Promise<void>;
}

/** Allowed request times of one bucket, oldest first; `head` skips the expired ones. */
interface SlidingLog {
  times: number[];
  head: number;
}

function decisionFrom(allowed: boolean, limit: number, count: number, oldestMs: number): RateDecision {
  return { allowed, limit, remaining: Math.max(0, limit - count), resetAtMs: oldestMs + WINDOW_MS };
}

/** In-process store: exact because a hit is synchronous. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  private lastSweepMs = 0;

  hit(bucket: string, limit: number, nowMs: number): RateDecision {
    this.sweepIdleBuckets(nowMs);
    let log = this.logs.get(bucket);
    if (!log) {
      log = { times: [], head: 0 };
      this.logs.set(bucket, log);
    }
    const windowStart = nowMs - WINDOW_MS;
    while (log.head < log.times.length && (log.times[log.head] ?? 0) <= windowStart) log.head++;
    if (log.head > 1024 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    const count = log.times.length - log.head;
    const allowed = count < limit;
    if (allowed) log.times.push(nowMs);
    const oldest = log.times[log.head] ?? nowMs;
    return decisionFrom(allowed, limit, allowed ? count + 1 : count, oldest);
  }

  /** Once a window, forget buckets with nothing left in it, so memory follows active clients. */
  private sweepIdleBuckets(nowMs: number): void {
    if (nowMs - this.lastSweepMs < WINDOW_MS) return;
    this.lastSweepMs = nowMs;
    for (const [bucket, log] of this.logs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || newest <= nowMs - WINDOW_MS) this.logs.delete(bucket);
    }
  }

  async close(): Promise<void> {
    this.logs.clear();
  }
}

/** Trim, count, add and read the oldest in one atomic script: one round trip per request. */
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or tostring(now)}
`;

type SlidingWindowReply = [number, number, string];

interface RedisWithSlidingWindow extends Redis {
  slidingWindow(
    key: string,
    now: number,
    window: number,
    limit: number,
    member: string,
  ): Promise<SlidingWindowReply>;
}

interface PipelineWithSlidingWindow extends ChainableCommander {
  slidingWindow(key: string, now: number, window: number, limit: number, member: string): this;
}

/** Shared store: every server process pointed at the same Redis spends one budget. */
export class RedisRateLimiter implements RateLimiter {
  /** ioredis is loaded here, so that an installation without Redis starts without loading it. */
  private readonly redis: Promise<RedisWithSlidingWindow>;

  constructor(
    url: string,
    private readonly keyPrefix = 'labeldesk:rate:',
  ) {
    this.redis = import('ioredis').then(({ Redis }) => {
      const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
      redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
      // While Redis is away the client reconnects by itself; each request that needed it fails with
      // 503 and is logged by the auth hook, so connection errors need no second report here.
      redis.on('error', () => undefined);
      return redis as RedisWithSlidingWindow;
    });
    // A client that cannot be made fails each request that needs it (503, logged there); until the
    // first such request nothing awaits the promise, and its rejection must not end the process.
    this.redis.catch(() => undefined);
  }

  async hit(bucket: string, limit: number, nowMs: number): Promise<RateDecision> {
    const redis = await this.redis;
    const [allowed, count, oldest] = await redis.slidingWindow(
      this.keyPrefix + bucket,
      nowMs,
      WINDOW_MS,
      limit,
      `${nowMs}:${randomUUID()}`,
    );
    return decisionFrom(allowed === 1, limit, count, Number(oldest));
  }

  /**
   * Whether each hit, in order, is within `limit` in its bucket: one round trip for them all (a
   * pipeline of the same script), for callers that can decide later than the request.
   */
  async hitAll(hits: readonly { bucket: string; nowMs: number }[], limit: number): Promise<boolean[]> {
    if (hits.length === 0) return [];
    // The script is defined on the client (defineCommand), and so on its pipelines too.
    const pipeline = (await this.redis).pipeline() as PipelineWithSlidingWindow;
    for (const { bucket, nowMs } of hits) {
      pipeline.slidingWindow(this.keyPrefix + bucket, nowMs, WINDOW_MS, limit, `${nowMs}:${randomUUID()}`);
    }
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, reply]) => {
      if (error) throw error;
      return (reply as SlidingWindowReply)[0] === 1;
    });
  }

  async close(): Promise<void> {
    await (await this.redis).quit();
  }
}

export function createRateLimiter(redisUrl: string | null): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl) : new MemoryRateLimiter();
}
