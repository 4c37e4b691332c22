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
import { namingPool } from './named-statements.ts';
import type { Dialect } from './portable.ts';
import { registerChangeToken } from './read-cache.ts';
import type { Database } from './schema.ts';

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
  const othersCommits = commitsByOtherConnections(sqlite);
  registerChangeToken(db, () => (sqlite.open ? `${othersCommits()}:${counter.writes}` : null));
  return db;
}

/**
 * SQLite's data_version, which moves when another connection (the command line, another server
 * process) commits. Reading it takes the WAL lock, a few microseconds, so it is read at most once per
 * event-loop turn: a commit by another process is seen from the next turn on. A request sent after
 * the commit is read in a later turn; the exceptions are narrow (a request pipelined behind another
 * on one connection and drained by the same read) and see the commit one turn late.
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

function openPostgres(url: string, poolSize: number): Db {
  // Kysely makes the pool at the first query; pg is loaded then, so SQLite installations never load it.
  const pool = async () =>
    namingPool(new (await import('pg')).default.Pool({ connectionString: url, max: poolSize }));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Opens the database the configuration names: PostgreSQL for a postgres:// URL, else SQLite in the data dir. */
export function createDatabase(
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'databasePoolSize'>>,
): DatabaseHandle {
  if (config.databaseUrl) {
    const db = openPostgres(config.databaseUrl, config.databasePoolSize ?? DEFAULT_DATABASE_POOL_SIZE);
    return { db, dialect: 'postgres', destroy: () => db.destroy() };
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
