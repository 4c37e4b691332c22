import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Db } from '../../db/database.ts';
import type { Dimension } from '../../db/values.ts';
import { RedisRateLimiter } from '../../http/rate-limiter.ts';
import { countingNamespace } from './link-stats.store.ts';
import type {
  BreakdownCountRow,
  DayCountRow,
  LinkCountRow,
  TallyRows,
  TargetCountRow,
} from './link-tally.ts';

/*
 * With REDIS_URL, the processes' counts meet in Redis before they are written (link-counts.ts):
 *
 * - `<prefix>pending:<label>` a hash per label, each field one counter (HINCRBY), and
 *   `<prefix>labels` the set of labels with such a hash;
 * - `<prefix>taken:<token>` a label's hash once taken for a write, renamed in one script with its
 *   token recorded in `<prefix>taken` (a sorted set by the time it was taken), deleted once written.
 *   The write records the token in the same transaction (link_count_batches), so a batch whose taker
 *   died before deleting it is applied again by another process at most once.
 *
 * The prefix holds a random name kept in the database (migration 0017) rather than one derived from
 * the database's address the way db/invalidation.ts names its channel: an in-memory SQLite database
 * has no address, and tests share one Redis between many databases of both engines.
 */

const KEY_ROOT = 'labeldesk:counts:';

/** A label's counts taken from Redis for one write; the token is recorded by the write. */
export interface TakenBatch {
  labelId: number;
  token: string;
  rows: TallyRows;
}

/** One counter of a label's hash; a JSON array, because sources and languages hold any character. */
type Field =
  | ['link', linkId: number, column: 'views' | 'clicks']
  | ['target', targetId: number, linkId: number]
  | ['day', linkId: number, day: string, column: 'views' | 'clicks']
  | ['breakdown', linkId: number, day: string, dimension: Dimension, value: string];

const fieldName = (field: Field): string => JSON.stringify(field);

/** The hash fields the rows add to, and by how much (a counter the rows leave at 0 is not named). */
function fieldsOf(rows: TallyRows): [string, number][] {
  const fields: [string, number][] = [
    ...rows.links.flatMap((row): [string, number][] => [
      [fieldName(['link', row.id, 'views']), row.views],
      [fieldName(['link', row.id, 'clicks']), row.clicks],
    ]),
    ...rows.targets.map((row): [string, number] => [fieldName(['target', row.id, row.link_id]), row.clicks]),
    ...rows.days.flatMap((row): [string, number][] => [
      [fieldName(['day', row.link_id, row.day, 'views']), row.views],
      [fieldName(['day', row.link_id, row.day, 'clicks']), row.clicks],
    ]),
    ...rows.breakdowns.map((row): [string, number] => [
      fieldName(['breakdown', row.link_id, row.day, row.dimension, row.value]),
      row.count,
    ]),
  ];
  return fields.filter(([, amount]) => amount !== 0);
}

/** The rows of a label's hash, as the tally had them. */
function rowsOf(labelId: number, hash: Record<string, string>): TallyRows {
  const links = new Map<number, LinkCountRow>();
  const targets: TargetCountRow[] = [];
  const days = new Map<string, DayCountRow>();
  const breakdowns: BreakdownCountRow[] = [];
  for (const [name, amount] of Object.entries(hash)) {
    const count = Number(amount);
    // Every field was named by fieldName() above.
    const field = JSON.parse(name) as Field;
    switch (field[0]) {
      case 'link': {
        const [, id, column] = field;
        const row = links.get(id) ?? { id, label_id: labelId, views: 0, clicks: 0 };
        row[column] += count;
        links.set(id, row);
        break;
      }
      case 'target':
        targets.push({ id: field[1], link_id: field[2], label_id: labelId, clicks: count });
        break;
      case 'day': {
        const [, linkId, day, column] = field;
        const key = `${linkId}|${day}`;
        const row = days.get(key) ?? { link_id: linkId, label_id: labelId, day, views: 0, clicks: 0 };
        row[column] += count;
        days.set(key, row);
        break;
      }
      case 'breakdown': {
        const [, linkId, day, dimension, value] = field;
        breakdowns.push({ link_id: linkId, label_id: labelId, day, dimension, value, count });
        break;
      }
    }
  }
  return { links: [...links.values()], targets, days: [...days.values()], breakdowns };
}

/**
 * Takes a label's pending hash in one step: renamed to its taken key, recorded with the time, the
 * label off the pending set. Counts added after it start a new hash. Answers the hash's fields.
 */
const TAKE_SCRIPT = `
redis.call('SREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('RENAME', KEYS[1], KEYS[3])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return redis.call('HGETALL', KEYS[3])
`;

interface RedisWithTake extends Redis {
  takeCounts(
    pending: string,
    labels: string,
    taken: string,
    takenSet: string,
    labelId: number,
    token: string,
    nowMs: number,
  ): Promise<string[]>;
}

/** HGETALL's flat reply (field, value, field, value…) as an object. */
function hashOf(reply: readonly string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) hash[reply[i] ?? ''] = reply[i + 1] ?? '0';
  return hash;
}

/** The label a token was taken for: tokens are `<label>:<uuid>`. */
const labelOfToken = (token: string): number => Number(token.slice(0, token.indexOf(':')));

/** This database's counting keys in one Redis, shared by every process pointed at both. */
export class RedisCounts {
  /** ioredis is loaded here, so that an installation without Redis starts without loading it. */
  private readonly redis: Promise<RedisWithTake>;
  private readonly perClient: RedisRateLimiter;
  private namespace: Promise<string> | null = null;

  constructor(
    url: string,
    private readonly db: Db,
  ) {
    this.redis = import('ioredis').then(({ Redis }) => {
      const redis = new Redis(url, { maxRetriesPerRequest: 2 });
      redis.defineCommand('takeCounts', { numberOfKeys: 4, lua: TAKE_SCRIPT });
      // The client reconnects by itself; link-counts.ts tells of the writes that failed meanwhile.
      redis.on('error', () => undefined);
      return redis as RedisWithTake;
    });
    // Nothing may await the client before it fails; its rejection must not end the process.
    this.redis.catch(() => undefined);
    // Its buckets name whole keys, this database's prefix first.
    this.perClient = new RedisRateLimiter(url, '');
  }

  /**
   * Whether each view (or click), in order, is within `limit` a minute for its client and link,
   * across processes: one round trip for them all.
   */
  async withinClientLimits(
    hits: readonly { bucket: string; nowMs: number }[],
    limit: number,
  ): Promise<boolean[]> {
    const prefix = await this.prefix();
    return this.perClient.hitAll(
      hits.map(({ bucket, nowMs }) => ({ bucket: `${prefix}client:${bucket}`, nowMs })),
      limit,
    );
  }

  /** Adds labels' counts to their pending hashes, all or none (one MULTI). */
  async add(counts: readonly { labelId: number; rows: TallyRows }[]): Promise<void> {
    const [redis, keys] = await Promise.all([this.redis, this.keys()]);
    const multi = redis.multi();
    for (const { labelId, rows } of counts) {
      for (const [field, amount] of fieldsOf(rows)) multi.hincrby(keys.pending(labelId), field, amount);
      multi.sadd(keys.labels, labelId);
    }
    const replies = await multi.exec();
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
  }

  /** Takes the labels' pending hashes (those that have one), each as a batch with a fresh token. */
  async take(labelIds: readonly number[], nowMs: number): Promise<TakenBatch[]> {
    const [redis, keys] = await Promise.all([this.redis, this.keys()]);
    const batches = await Promise.all(
      labelIds.map(async (labelId) => {
        const token = `${labelId}:${randomUUID()}`;
        const hash = hashOf(
          await redis.takeCounts(
            keys.pending(labelId),
            keys.labels,
            keys.taken(token),
            keys.takenSet,
            labelId,
            token,
            nowMs,
          ),
        );
        return { labelId, token, rows: rowsOf(labelId, hash) };
      }),
    );
    return batches.filter((batch) => batch.rows.links.length > 0);
  }

  /** The labels with counts in Redis that no process has taken yet. */
  async pendingLabels(): Promise<number[]> {
    const [redis, keys] = await Promise.all([this.redis, this.keys()]);
    return (await redis.smembers(keys.labels)).map(Number);
  }

  /** Batches taken before `takenBeforeMs` and still there: their taker died (or its write failed). */
  async abandoned(takenBeforeMs: number): Promise<TakenBatch[]> {
    const [redis, keys] = await Promise.all([this.redis, this.keys()]);
    const tokens = await redis.zrangebyscore(keys.takenSet, '-inf', takenBeforeMs);
    const batches = await Promise.all(
      tokens.map(async (token) => {
        const labelId = labelOfToken(token);
        return { labelId, token, rows: rowsOf(labelId, await redis.hgetall(keys.taken(token))) };
      }),
    );
    const finished = batches.filter((batch) => batch.rows.links.length === 0);
    if (finished.length > 0) await this.finish(finished);
    return batches.filter((batch) => batch.rows.links.length > 0);
  }

  /** Forgets written batches. */
  async finish(batches: readonly TakenBatch[]): Promise<void> {
    if (batches.length === 0) return;
    const [redis, keys] = await Promise.all([this.redis, this.keys()]);
    const tokens = batches.map((batch) => batch.token);
    await redis
      .multi()
      .del(...tokens.map((token) => keys.taken(token)))
      .zrem(keys.takenSet, ...tokens)
      .exec();
  }

  async close(): Promise<void> {
    await Promise.all([this.perClient.close(), this.redis.then((redis) => redis.quit())]);
  }

  private async keys() {
    const prefix = await this.prefix();
    return {
      pending: (labelId: number) => `${prefix}pending:${labelId}`,
      labels: `${prefix}labels`,
      taken: (token: string) => `${prefix}taken:${token}`,
      takenSet: `${prefix}taken`,
    };
  }

  private prefix(): Promise<string> {
    if (!this.namespace) {
      this.namespace = countingNamespace(this.db).then((namespace) => `${KEY_ROOT}${namespace}:`);
      // A failed read is tried again by the next caller.
      this.namespace.catch(() => {
        this.namespace = null;
      });
    }
    return this.namespace;
  }
}
