// What the benches that load real servers over HTTPS share (`bench:engines`, `bench:fan`): a run's
// directory, children and databases; one self-signed pair for every server of the run; a bare
// Fastify "hello" for reference; Labeldesk from the compiled build; and clean-up on Ctrl-C.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchDatabase, openBenchDatabase, openFreshPostgres, settle } from './catalog-database.ts';
import {
  type Child,
  freePort,
  killChildNow,
  LOOPBACK,
  startNodeChild,
  stopChild,
  waitUntil,
} from './children.ts';
import { type HotPaths, seedHotPaths } from './hot-paths.ts';
import { dataDirOf, openContext } from './in-process.ts';
import { labeldeskEnv, REPO_ROOT } from './labeldesk.ts';
import { getOnce, type Server } from './load.ts';
import type { Tls } from './tls.ts';

export interface Run {
  dir: string;
  children: Child[];
  databases: BenchDatabase[];
}

export interface SeededDatabase extends HotPaths {
  url: string;
  dataDir: string;
  bench: BenchDatabase;
}

/**
 * A database migrated and seeded in this process (a fresh PostgreSQL database on `postgresUrl`'s
 * server, or SQLite); the servers then open it by URL (or data dir).
 */
export async function seededDatabase(
  run: Run,
  name: string,
  postgresUrl: string | null,
): Promise<SeededDatabase> {
  const dir = join(run.dir, name);
  mkdirSync(dir);
  const bench = postgresUrl
    ? await openFreshPostgres(postgresUrl, dataDirOf(dir), `labeldesk_bench_${name.replace(/\W+/g, '_')}`)
    : await openBenchDatabase(dataDirOf(dir), null);
  run.databases.push(bench);
  const ctx = await openContext(dir, bench);
  const seeded = await seedHotPaths(ctx);
  await settle(bench);
  return { url: bench.url, dataDir: dataDirOf(dir), bench, ...seeded };
}

/** A bare Fastify "hello": over HTTPS with the run's pair, or over plain HTTP without one. */
export async function startHello(run: Run, tls: Tls | null): Promise<Server> {
  const port = await freePort();
  // Through tsx, as it is TypeScript; a loader costs start-up time, not the steady state measured here.
  const child = startNodeChild('hello server', ['--import', 'tsx', 'bench/hello-server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), ...tls?.env },
    logFile: join(run.dir, `hello-${tls ? 'https' : 'http'}.log`),
  });
  run.children.push(child);
  const server = tls
    ? { child, origin: `https://${LOOPBACK}:${port}`, ca: tls.cert }
    : { child, origin: `http://${LOOPBACK}:${port}` };
  await waitUntil(child, `${server.origin}/`, () => getOnce(server, '/', {}));
  return server;
}

/** What a TLS-terminating proxy on the loopback address adds to each request it passes on. */
export const VIA_PROXY = { 'x-forwarded-proto': 'https' };

/**
 * Labeldesk from the compiled build: serving HTTPS itself with the run's pair, as it does without a
 * proxy, or without one behind a trusted proxy on the loopback address (`TRUST_PROXY=1`, plain HTTP:
 * requests then carry `VIA_PROXY` and speak for the client in `X-Forwarded-For`).
 */
export async function startLabeldesk(
  run: Run,
  name: string,
  env: { DATABASE_URL: string; REDIS_URL: string; LABELDESK_DATA_DIR: string },
  tls: Tls | null,
): Promise<Server> {
  const port = await freePort();
  const listener = tls ? tls.env : { TRUST_PROXY: '1' };
  const child = startNodeChild(`labeldesk on ${name}`, ['bin/labeldesk.js', 'serve'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(env.LABELDESK_DATA_DIR, { ...env, ...listener, PORT: String(port), HOST: LOOPBACK }),
    logFile: join(run.dir, `labeldesk-${name.replace(/\W+/g, '-')}.log`),
  });
  run.children.push(child);
  const server = tls
    ? { child, origin: `https://${LOOPBACK}:${port}`, ca: tls.cert }
    : { child, origin: `http://${LOOPBACK}:${port}` };
  const headers = tls ? {} : VIA_PROXY;
  await waitUntil(child, `${server.origin}/api/v1/status`, () => getOnce(server, '/api/v1/status', headers));
  return server;
}

/** Ctrl-C or a kill must not leave servers listening, a database or the temporary dir behind. */
function cleanUpOnSignal(run: Run): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of run.children) killChildNow(child);
      void Promise.allSettled(run.databases.map((bench) => bench.drop())).finally(() => {
        rmSync(run.dir, { recursive: true, force: true });
        process.exit(1);
      });
    });
  }
}

/**
 * Runs a bench of server children in a run of its own, and cleans up after it however it ends: the
 * exit code is 0 when `benchmark` says every check held.
 */
export async function runServerBench(
  name: string,
  benchmark: (run: Run) => Promise<boolean>,
): Promise<number> {
  const reportFailure = (error: unknown): number => {
    process.stderr.write(`bench:${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  };
  const run: Run = {
    dir: mkdtempSync(join(tmpdir(), `labeldesk-bench-${name}-`)),
    children: [],
    databases: [],
  };
  cleanUpOnSignal(run);
  try {
    return (await benchmark(run)) ? 0 : 1;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await Promise.all(run.children.map(stopChild));
    await Promise.allSettled(run.databases.map((bench) => bench.drop()));
    rmSync(run.dir, { recursive: true, force: true });
  }
}
