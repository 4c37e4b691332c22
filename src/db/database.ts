import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Dialect } from './portable.ts';
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

function openSqlite(file: string): Db {
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}

function openPostgres(url: string): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Opens the database the configuration names: PostgreSQL for a postgres:// URL, else SQLite in the data dir. */
export function createDatabase(config: Pick<Config, 'dataDir' | 'databaseUrl'>): DatabaseHandle {
  if (config.databaseUrl) {
    const db = openPostgres(config.databaseUrl);
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
