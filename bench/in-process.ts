// What the benches that seed their data in process (catalog, links) share: a temporary dir with the
// bench database (cleaned up at the end and on Ctrl-C), an AppContext on it, migrated, and a label
// whose key never meets a limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, systemClock } from '../src/clock.ts';
import { type Env, loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createLabel, updateLabel } from '../src/modules/labels/labels.service.ts';
import { systemResolver } from '../src/modules/webhooks/webhooks.address.ts';
import { type BenchDatabase, openBenchDatabase } from './catalog-database.ts';

/** The data dir of the server the bench starts, if any; the SQLite file lives there. */
export function dataDirOf(dir: string): string {
  return join(dir, 'data');
}

/**
 * Migrates the bench database and returns a context on it, as a server in that data dir (and with
 * the `env` settings) would have.
 */
export async function openContext(dir: string, bench: BenchDatabase, env: Env = {}): Promise<AppContext> {
  const { db, dialect } = bench.handle;
  await migrateToLatest(db, dialect);
  const config = loadConfig({
    LABELDESK_DATA_DIR: dataDirOf(dir),
    BASE_URL: 'https://localhost:8443',
    ...env,
  });
  return { config, db, dialect, clock: systemClock, resolveHost: systemResolver };
}

/** The same context at another moment, for rows that must look as if made then. */
export function at(ctx: AppContext, moment: Date): AppContext {
  const clock: Clock = { now: () => new Date(moment) };
  return { ...ctx, clock };
}

/** A Pro label whose key has every scope; every answer measured is real work, never a 429 or a plan's 403. */
export async function prepareLabel(ctx: AppContext, name: string): Promise<{ labelId: number; key: string }> {
  const label = await createLabel(ctx, { name, plan: 'pro', contractSigned: true });
  await updateLabel(ctx, label.id, {
    limits: [
      ['rate', 100_000_000],
      ['releases', null],
    ],
  });
  const issued = await createKey(ctx, { labelId: label.id, scopes: ['all'] });
  return { labelId: label.id, key: issued.key };
}

/**
 * Runs `benchmark` in a new temporary dir on a new bench database (BENCH_DATABASE_URL: a private
 * schema in that PostgreSQL database), removes both afterwards, and returns the exit code.
 */
export async function runBench(
  name: string,
  benchmark: (dir: string, bench: BenchDatabase) => Promise<void>,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), `labeldesk-${name.replace(':', '-')}-`));
  const bench = await openBenchDatabase(dataDirOf(dir), process.env.BENCH_DATABASE_URL || null);
  const cleanUp = async () => {
    await bench.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  // Ctrl-C must not leave a large temporary dir or a PostgreSQL schema behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void cleanUp().finally(() => process.exit(1));
    });
  }
  try {
    await benchmark(dir, bench);
    return 0;
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await cleanUp();
  }
}
