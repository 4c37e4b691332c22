import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  type SqliteDatabase as SqliteDatabaseInterface,
  SqliteDialect,
  type SqliteStatement,
  sql,
} from 'kysely';
import { type Config, DEFAULT_DATABASE_POOL_SIZE } from '../config.ts';
import { PostgresInvalidation } from './invalidation.ts';
import { namingPool } from './named-statements.ts';
import type { Dialect } from './portable.ts';
import type { Database } from './schema.ts';
import { watchSqliteCommits } from './sqlite-commits.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Db;
  readonly dialect: Dialect;
  destroy(): Promise<void>;
}

export function sqliteFilePath(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'labeldesk.sqlite');
}

const STATEMENT_CACHE_SIZE = 500;

type KyselySqlite = SqliteDatabaseInterface;
type KyselyStatement = SqliteStatement;

/** Counts this connection's writes; SQLite's data_version counts only other connections' commits. */
interface WriteCounter {
  writes: number;
}

/** A statement that may modify the database counts each execution as a write. */
function countingWrites(statement: SqliteDatabase.Statement, counter: WriteCounter): KyselyStatement {
  if (statement.readonly) return statement;
  return {
    reader: statement.reader,
    all(parameters) {
      const rows = statement.all(parameters);
      counter.writes++;
      return rows;
    },
    run(parameters) {
      const result = statement.run(parameters);
      counter.writes++;
      return result;
    },
    iterate(parameters) {
      counter.writes++;
      return statement.iterate(parameters);
    },
  };
}

/**
 * Kysely prepares every query anew; preparing costs several times more than running a small
 * query, and the server runs the same few queries all day. Statements are kept by SQL text.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, counter: WriteCounter): KyselySqlite {
  const statements = new Map<string, KyselyStatement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        statement = countingWrites(sqlite.prepare(text), counter);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * Kysely takes no migration lock on SQLite, so two commands started at once on a fresh data dir
 * both found the schema missing and the second failed with "table labels already exists". The
 * migrations run in one IMMEDIATE transaction instead: the second process waits (busy_timeout) for
 * the first to commit, then finds nothing left to apply. A failed migration still commits the ones
 * before it, as each statement did on its own before.
 */
class SerializedMigrationsAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin immediate`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`commit`.execute(db);
  }
}

class LabeldeskSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new SerializedMigrationsAdapter();
  }
}

function openSqlite(file: string): Db {
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const counter: WriteCounter = { writes: 0 };
  const db = new Kysely<Database>({
    dialect: new LabeldeskSqliteDialect({ database: withStatementCache(sqlite, counter) }),
  });
  watchSqliteCommits(db, sqlite, () => counter.writes);
  return db;
}

function openPostgres(url: string, poolSize: number, redisUrl: string | null): DatabaseHandle {
  // Kysely makes the pool at the first query; pg is loaded then, so SQLite installations never load it.
  const pool = async () => {
    const pg = new (await import('pg')).default.Pool({ connectionString: url, max: poolSize });
    // An idle connection that the server ends (a restart, a failover, pg_terminate_backend) is an
    // 'error' event on the pool, which would otherwise end the process. pg has already dropped the
    // connection then; the next query opens a new one, and a database that stays away fails it.
    pg.on('error', () => undefined);
    return namingPool(pg);
  };
  const invalidation = new PostgresInvalidation(url, redisUrl);
  const db = new Kysely<Database>({ dialect: invalidation.wrap(new PostgresDialect({ pool })) });
  invalidation.attach(db);
  return {
    db,
    dialect: 'postgres',
    destroy: async () => {
      await invalidation.close();
      await db.destroy();
    },
  };
}

/**
 * Opens the database the configuration names: PostgreSQL for a postgres:// URL, else SQLite in the
 * data dir. On PostgreSQL, `redisUrl` carries the cache's invalidations instead of NOTIFY.
 */
export function createDatabase(
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'redisUrl' | 'databasePoolSize'>>,
): DatabaseHandle {
  if (config.databaseUrl) {
    const poolSize = config.databasePoolSize ?? DEFAULT_DATABASE_POOL_SIZE;
    return openPostgres(config.databaseUrl, poolSize, config.redisUrl ?? null);
  }
  mkdirSync(config.dataDir, { recursive: true });
  const db = openSqlite(sqliteFilePath(config));
  return { db, dialect: 'sqlite', destroy: () => db.destroy() };
}

/** A private in-memory SQLite database: for documents built without a server, and for tests. */
export function createMemoryDatabase(): DatabaseHandle {
  const db = openSqlite(':memory:');
  return { db, dialect: 'sqlite', destroy: () => db.destroy() };
}

/** Round-trip time of a trivial query, in milliseconds; throws when the database is unreachable. */
export async function pingDatabase(db: Db): Promise<number> {
  const started = performance.now();
  await sql`select 1`.execute(db);
  return performance.now() - started;
}
