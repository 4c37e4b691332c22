// The catalog bench's database: a SQLite file in the bench's temporary dir, or, with
// BENCH_DATABASE_URL, a private schema in that PostgreSQL database (dropped afterwards), so a run
// never touches anything it did not create.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { createDatabase, type DatabaseHandle } from '../src/db/database.ts';

export interface BenchDatabase {
  handle: DatabaseHandle;
  /** DATABASE_URL for another process on the same data: '' for the SQLite file in the data dir. */
  url: string;
  /** Closes the connection and removes what the run created. */
  drop(): Promise<void>;
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The database `url` reaches, opened for a bench; `drop` closes it, then runs `dropStatement` as admin. */
function openAt(baseUrl: string, url: URL, dataDir: string, dropStatement: string): BenchDatabase {
  const handle = createDatabase({ dataDir, databaseUrl: url.toString() });
  return {
    handle,
    url: url.toString(),
    drop: async () => {
      await handle.destroy();
      await adminQuery(baseUrl, dropStatement);
    },
  };
}

async function openPostgres(baseUrl: string, dataDir: string): Promise<BenchDatabase> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(baseUrl, `create schema ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return openAt(baseUrl, url, dataDir, `drop schema ${schema} cascade`);
}

export async function openBenchDatabase(dataDir: string, postgresUrl: string | null): Promise<BenchDatabase> {
  if (postgresUrl) return openPostgres(postgresUrl, dataDir);
  const handle = createDatabase({ dataDir, databaseUrl: null });
  return { handle, url: '', drop: () => handle.destroy() };
}

/**
 * What autovacuum does a minute after a bulk load on PostgreSQL (table statistics for the planner,
 * the visibility map for index-only scans), done now, so the numbers are those of a server in its
 * steady state. SQLite is left as a server's database is: without ANALYZE statistics.
 */
export async function settle(bench: BenchDatabase): Promise<void> {
  if (bench.handle.dialect === 'postgres') await sql`vacuum analyze`.execute(bench.handle.db);
}

/**
 * A new PostgreSQL database on the server of `baseUrl` (as CI makes one per run), for benches whose
 * server processes connect to it by URL; `drop` removes it, connections and all.
 */
export async function openFreshPostgres(
  baseUrl: string,
  dataDir: string,
  name: string,
): Promise<BenchDatabase> {
  const database = `${name}_${Date.now()}_${process.pid}`;
  await adminQuery(baseUrl, `create database ${database}`);
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return openAt(baseUrl, url, dataDir, `drop database if exists ${database} with (force)`);
}
