import type { Redis } from 'ioredis';
import { type Dialect as KyselyDialect, sql } from 'kysely';
import type pg from 'pg';
import { BumpReadingDriver } from './bump-reading-driver.ts';
import type { Db } from './database.ts';
import { attachCache, type CacheStore } from './read-cache.ts';

/*
 * How each process learns which cached callers a commit changed. The triggers of migration 0012 bump
 * a version per key and per label in the transaction of the write; what tells the processes:
 *
 * - SQLite: the `cache_versions` rows above the last version seen (db/sqlite-commits.ts).
 * - PostgreSQL: the triggers' NOTIFY, delivered on commit to a dedicated LISTEN connection in every
 *   process; with REDIS_URL, a Redis message the committing process publishes after its commit.
 *   The committing process reads its own bumps before it commits and evicts them once committed
 *   (db/bump-reading-driver.ts), so its next request sees the change whatever the channel's delay.
 *
 * While a channel is down nothing is kept, and once it is back everything is dropped: what it
 * would have said meanwhile is lost.
 */

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/** Tells of failures of the channel: the database layer has no log of its own. */
function warn(message: string, error: unknown): void {
  process.emitWarning(
    `${message}: ${error instanceof Error ? error.message : String(error)}`,
    'LabeldeskCache',
  );
}

/**
 * The cache of one PostgreSQL database and its channel: LISTEN/NOTIFY, or Redis pub/sub when a Redis
 * URL is given. `wrap` the dialect before the Kysely is made, then `attach` the Kysely.
 */
export class PostgresInvalidation {
  private store: CacheStore | null = null;
  private db: Db | null = null;
  private live = false;
  private started = false;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | null = null;
  private listener: pg.Client | null = null;
  private subscriber: Redis | null = null;
  private publisher: Promise<Redis> | null = null;
  private channel: Promise<string> | null = null;

  constructor(
    private readonly url: string,
    private readonly redisUrl: string | null,
  ) {}

  attach(db: Db): void {
    this.db = db;
    attachCache(db, (store) => {
      this.store = store;
      return { check: () => this.check() };
    });
  }

  /** The dialect with a driver that evicts, and publishes, what each committed transaction bumped. */
  wrap(dialect: KyselyDialect): KyselyDialect {
    return {
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createDriver: () =>
        new BumpReadingDriver(dialect.createDriver(), (subjects) => this.committed(subjects)),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.retry) clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    this.subscriber?.disconnect();
    if (this.publisher) (await this.publisher).disconnect();
  }

  private check(): boolean {
    if (!this.started) {
      this.started = true;
      this.connect();
    }
    return this.live;
  }

  private async committed(subjects: readonly string[]): Promise<void> {
    this.store?.evict(subjects);
    if (!this.redisUrl) return;
    try {
      const [publisher, channel] = await Promise.all([
        this.redisPublisher(this.redisUrl),
        this.channelName(),
      ]);
      await publisher.publish(channel, subjects.join(' '));
    } catch (error) {
      warn('could not tell other processes of a change to cached callers', error);
    }
  }

  /** The channel migration 0012's triggers notify: one per database and schema. */
  private channelName(): Promise<string> {
    if (!this.channel) {
      const db = this.db;
      if (!db) throw new Error('PostgresInvalidation used before attach()');
      this.channel = sql<{ channel: string }>`select labeldesk_cache_channel() as channel`
        .execute(db)
        .then(({ rows }) => rows[0]?.channel ?? 'labeldesk_cache');
      this.channel.catch(() => {
        this.channel = null;
      });
    }
    return this.channel;
  }

  private connect(): void {
    if (this.closed) return;
    const listening = this.redisUrl ? this.subscribe(this.redisUrl) : this.listen();
    listening.catch((error: unknown) => this.lost(error));
  }

  private async listen(): Promise<void> {
    const { default: pgModule } = await import('pg');
    if (this.closed) return;
    const client = new pgModule.Client({ connectionString: this.url });
    this.listener = client;
    client.on('error', (error) => this.lost(error, client));
    client.on('end', () => this.lost(new Error('connection ended'), client));
    client.on('notification', (message) => {
      if (message.payload) this.store?.evict([message.payload]);
    });
    await client.connect();
    const channel = await this.channelName();
    // The name is made of [a-z0-9_] by labeldesk_cache_channel().
    await client.query(`listen "${channel}"`);
    if (this.listener === client) this.up();
  }

  private async subscribe(redisUrl: string): Promise<void> {
    const channel = await this.channelName();
    const { Redis } = await import('ioredis');
    if (this.closed) return;
    // ioredis reconnects by itself; it subscribes again here, where the cache can be dropped first.
    const subscriber = new Redis(redisUrl, { autoResubscribe: false, maxRetriesPerRequest: null });
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => this.store?.evict(message.split(' ')));
    subscriber.on('close', () => this.down());
    subscriber.on('error', () => undefined);
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => this.up(),
        () => this.down(),
      );
    });
  }

  private redisPublisher(redisUrl: string): Promise<Redis> {
    if (!this.publisher) {
      this.publisher = import('ioredis').then(({ Redis }) => {
        const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
        publisher.on('error', () => undefined);
        return publisher;
      });
    }
    return this.publisher;
  }

  private up(): void {
    this.retryMs = FIRST_RETRY_MS;
    this.store?.clear();
    this.live = true;
  }

  private down(): void {
    this.live = false;
    this.store?.clear();
  }

  /** The LISTEN connection failed: nothing is kept until a new one listens. */
  private lost(error: unknown, client?: pg.Client): void {
    if (client && this.listener !== client) return;
    this.listener = null;
    client?.end().catch(() => undefined);
    this.down();
    if (this.closed) return;
    warn('lost the channel that invalidates cached callers; reconnecting', error);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
  }
}
