import type SqliteDatabase from 'better-sqlite3';
import type { Redis } from 'ioredis';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Dialect as KyselyDialect,
  type QueryCompiler,
  type QueryResult,
  sql,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Db } from './database.ts';
import { attachCache, type CacheStore } from './read-cache.ts';

/*
 * How each process learns which cached callers a commit changed. The triggers of migration 0012 bump
 * a version per key and per label in the transaction of the write; what tells the processes:
 *
 * - SQLite: the `cache_versions` rows above the last version seen, read before a cached read when
 *   the file moved (`pragma data_version`, another connection's commit) or this connection wrote.
 * - PostgreSQL: the triggers' NOTIFY, delivered on commit to a dedicated LISTEN connection in every
 *   process; with REDIS_URL, a Redis message the committing process publishes after its commit.
 *   The committing process reads its own bumps before it commits and evicts them once committed, so
 *   its next request sees the change whatever the channel's delay.
 *
 * While a channel is down nothing is kept, and once it is back everything is dropped: what it
 * would have said meanwhile is lost.
 */

// ---------------------------------------------------------------------------------------------
// SQLite

/**
 * `pragma data_version` moves when another connection commits. Reading it takes the WAL lock, a few
 * microseconds, so it is read at most once per event-loop turn: a request sent after another
 * process's commit arrives in a later turn.
 */
function commitsByOtherConnections(sqlite: SqliteDatabase.Database): () => unknown {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let current: unknown;
  let fresh = false;
  const expire = () => {
    fresh = false;
  };
  return () => {
    if (!fresh) {
      current = dataVersion.get();
      fresh = true;
      setImmediate(expire);
    }
    return current;
  };
}

interface Bump {
  subject: string;
  version: number;
}

/** The bumps committed after the last one seen; `ownWrites` counts this connection's writing statements. */
export function watchSqliteCommits(db: Db, sqlite: SqliteDatabase.Database, ownWrites: () => number): void {
  attachCache(db, (store) => {
    const othersCommits = commitsByOtherConnections(sqlite);
    let seenMark: string | null = null;
    let seenVersion: number | null = null;
    let newer: SqliteDatabase.Statement<[number], Bump> | null = null;
    return {
      check() {
        if (!sqlite.open) return false;
        // Inside this connection's open transaction the rows are not committed yet (they may roll
        // back): what is kept still holds until the commit, which the next check after it reads.
        if (sqlite.inTransaction) return seenVersion !== null;
        const mark = `${othersCommits()}:${ownWrites()}`;
        if (mark === seenMark) return true;
        try {
          if (newer === null || seenVersion === null) {
            // Before the migrations have run there is no table, and nothing is kept.
            const latest = sqlite
              .prepare('select coalesce(max(version), 0) as v from cache_versions')
              .pluck();
            seenVersion = Number(latest.get());
            newer = sqlite.prepare<[number], Bump>(
              'select subject, version from cache_versions where version > ? order by version',
            );
            store.clear();
          } else {
            const bumps = newer.all(seenVersion);
            const last = bumps.at(-1);
            if (last) {
              store.evict(bumps.map((bump) => bump.subject));
              seenVersion = last.version;
            }
          }
          seenMark = mark;
          return true;
        } catch {
          return false;
        }
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/**
 * Statements that may bump a caller's version (the tables migration 0012 watches); only after these
 * does the committing process read which subjects its transaction bumped. A smart link's counters
 * (views, clicks, pre-saves) are updated without `enabled`, and bump nothing.
 */
const WATCHED_WRITE =
  /^\s*(?:insert into|delete from) "(?:labels|api_keys|releases|artists|members|smart_links|webhooks)"|^\s*update "(?:labels|api_keys)"|^\s*update "smart_links" set .*"enabled"/;

const READ_BUMPS = CompiledQuery.raw("select current_setting('labeldesk.cache_bumps', true) as bumps");

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/** Tells of failures of the channel: the database layer has no log of its own. */
function warn(message: string, error: unknown): void {
  process.emitWarning(
    `${message}: ${error instanceof Error ? error.message : String(error)}`,
    'LabeldeskCache',
  );
}

interface ConnectionState {
  inner: DatabaseConnection;
  inTransaction: boolean;
  bumped: boolean;
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

/**
 * A driver that, after a statement that may bump a cached caller, reads the subjects the triggers
 * noted in the transaction before it commits, and hands them on once committed. A watched statement
 * outside a transaction runs in one of its own for that.
 */
class BumpReadingDriver implements Driver {
  private readonly states = new WeakMap<DatabaseConnection, ConnectionState>();

  constructor(
    private readonly inner: Driver,
    private readonly committed: (subjects: readonly string[]) => Promise<void>,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    const state: ConnectionState = { inner, inTransaction: false, bumped: false };
    const connection: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery) => this.execute<R>(state, query),
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    this.states.set(connection, state);
    return connection;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.stateOf(connection).inner);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const state = this.stateOf(connection);
    state.inTransaction = true;
    state.bumped = false;
    return this.inner.beginTransaction(state.inner, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const state = this.stateOf(connection);
    const subjects = state.bumped ? await readBumps(state.inner) : [];
    state.inTransaction = false;
    state.bumped = false;
    await this.inner.commitTransaction(state.inner);
    if (subjects.length > 0) await this.committed(subjects);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const state = this.stateOf(connection);
    state.inTransaction = false;
    state.bumped = false;
    return this.inner.rollbackTransaction(state.inner);
  }

  // A savepoint rolled back takes its part of the noted subjects with it, as it does the bumps.
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.inner.savepoint?.(this.stateOf(connection).inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.rollbackToSavepoint?.(this.stateOf(connection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.releaseSavepoint?.(this.stateOf(connection).inner, name, compile);
  }

  private async execute<R>(state: ConnectionState, query: CompiledQuery): Promise<QueryResult<R>> {
    if (!WATCHED_WRITE.test(query.sql)) return state.inner.executeQuery<R>(query);
    if (state.inTransaction) {
      state.bumped = true;
      return state.inner.executeQuery<R>(query);
    }
    await state.inner.executeQuery(CompiledQuery.raw('begin'));
    let result: QueryResult<R>;
    let subjects: string[];
    try {
      result = await state.inner.executeQuery<R>(query);
      subjects = await readBumps(state.inner);
      await state.inner.executeQuery(CompiledQuery.raw('commit'));
    } catch (error) {
      await state.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      throw error;
    }
    if (subjects.length > 0) await this.committed(subjects);
    return result;
  }

  private stateOf(connection: DatabaseConnection): ConnectionState {
    const state = this.states.get(connection);
    if (!state) throw new Error('a connection this driver did not hand out');
    return state;
  }
}

async function readBumps(connection: DatabaseConnection): Promise<string[]> {
  const { rows } = await connection.executeQuery<{ bumps: string | null }>(READ_BUMPS);
  return (rows[0]?.bumps ?? '').split(' ').filter(Boolean);
}
