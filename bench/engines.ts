// `npm run bench:engines` (also part of `npm run bench`): the same requests on each engine, in one run
// on one machine, over HTTPS with 50 connections: a bare Fastify "hello" for reference, then Labeldesk
// on SQLite, on PostgreSQL, and on PostgreSQL with Redis (the shared rate limits), each for GET /me,
// GET /releases?per_page=20 and a smart-link page view. The scenarios take turns round after round,
// and each goal is judged on the median of the rounds' ratios, so the machine's drift hits all alike.
//
// PostgreSQL is BENCH_POSTGRES_URL (default the local server's `postgres` database), where the run
// creates a database of its own and drops it at the end; Redis is BENCH_REDIS_URL (default
// redis://127.0.0.1:6379). BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP and BENCH_CONNECTIONS change
// the load (3 s, 3 rounds, 1 s, 50).
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
import { failedLogLines, labeldeskEnv, REPO_ROOT } from './labeldesk.ts';
import {
  findMeasured,
  getOnce,
  measureRounds,
  readLoadSettings,
  type Scenario,
  type Server,
  visitorSequence,
  warmUp,
} from './load.ts';
import {
  failuresOf,
  formatGrid,
  formatRatio,
  formatTable,
  type Measured,
  ratioGoalLine,
  requestsPerSecond,
} from './report.ts';
import { selfSignedTls, type Tls } from './tls.ts';

const settings = readLoadSettings({ durationS: 3, rounds: 3, warmupS: 1, connections: 50 });
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';

const BARE = 'bare Fastify';
const ENGINES = ['SQLite', 'PostgreSQL', 'PostgreSQL + Redis'] as const;
type Engine = (typeof ENGINES)[number];
const REQUESTS = ['GET /me', 'GET /releases', 'smart-link page'] as const;
type RequestName = (typeof REQUESTS)[number];

const scenarioName = (engine: Engine, request: RequestName) => `${engine} ${request}`;

interface Run {
  dir: string;
  children: Child[];
  databases: BenchDatabase[];
}

/** A database migrated and seeded in this process; the servers then open it by URL (or data dir). */
async function seededDatabase(
  run: Run,
  name: string,
  postgres: boolean,
): Promise<{ url: string; dataDir: string } & HotPaths> {
  const dir = join(run.dir, name);
  mkdirSync(dir);
  const bench = postgres
    ? await openFreshPostgres(POSTGRES_URL, dataDirOf(dir), 'labeldesk_bench_engines')
    : await openBenchDatabase(dataDirOf(dir), null);
  run.databases.push(bench);
  const ctx = await openContext(dir, bench);
  const seeded = await seedHotPaths(ctx);
  await settle(bench);
  return { url: bench.url, dataDir: dataDirOf(dir), ...seeded };
}

async function startHello(run: Run, tls: Tls): Promise<Server> {
  const port = await freePort();
  // Through tsx, as it is TypeScript; a loader costs start-up time, not the steady state measured here.
  const child = startNodeChild('hello server', ['--import', 'tsx', 'bench/hello-server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), ...tls.env },
    logFile: join(run.dir, 'hello.log'),
  });
  run.children.push(child);
  const server = { child, origin: `https://${LOOPBACK}:${port}`, ca: tls.cert };
  await waitUntil(child, `${server.origin}/`, () => getOnce(server, '/', {}));
  return server;
}

/** Labeldesk serving HTTPS itself, as it does without a proxy, from the compiled build. */
async function startLabeldesk(
  run: Run,
  engine: Engine,
  env: { DATABASE_URL: string; REDIS_URL: string; LABELDESK_DATA_DIR: string },
  tls: Tls,
): Promise<Server> {
  const port = await freePort();
  const child = startNodeChild(`labeldesk on ${engine}`, ['bin/labeldesk.js', 'serve'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(env.LABELDESK_DATA_DIR, { ...env, ...tls.env, PORT: String(port), HOST: LOOPBACK }),
    logFile: join(run.dir, `labeldesk-${engine.replace(/\W+/g, '-')}.log`),
  });
  run.children.push(child);
  const server = { child, origin: `https://${LOOPBACK}:${port}`, ca: tls.cert };
  await waitUntil(child, `${server.origin}/api/v1/status`, () => getOnce(server, '/api/v1/status', {}));
  return server;
}

function engineScenarios(engine: Engine, server: Server, seeded: HotPaths): Scenario[] {
  const api = { authorization: `Bearer ${seeded.key}` };
  return [
    { name: scenarioName(engine, 'GET /me'), server, path: '/api/v1/me', headers: api },
    {
      name: scenarioName(engine, 'GET /releases'),
      server,
      path: '/api/v1/releases?per_page=20',
      headers: api,
    },
    {
      name: scenarioName(engine, 'smart-link page'),
      server,
      path: seeded.linkPath,
      headers: { accept: 'text/html' },
      perRequestHeaders: visitorSequence(),
    },
  ];
}

/** Each request on each engine, against SQLite's rate and bare Fastify's. */
function engineTable(measured: readonly Measured[]): string {
  const bare = findMeasured(measured, BARE);
  const header = [
    'request',
    ...ENGINES.flatMap((engine) => [`${engine} req/s`, 'vs SQLite']),
    'SQLite vs bare',
  ];
  const rows = REQUESTS.map((request) => {
    const sqlite = findMeasured(measured, scenarioName('SQLite', request));
    return [
      request,
      ...ENGINES.flatMap((engine) => {
        const m = findMeasured(measured, scenarioName(engine, request));
        return [requestsPerSecond(m).toFixed(0), formatRatio(m, sqlite)];
      }),
      formatRatio(sqlite, bare),
    ];
  });
  return formatGrid(header, rows);
}

function goalLines(measured: readonly Measured[]): string[] {
  const find = (engine: Engine, request: RequestName) =>
    findMeasured(measured, scenarioName(engine, request));
  return [
    ratioGoalLine(find('PostgreSQL', 'GET /me'), find('SQLite', 'GET /me'), 0.6),
    ratioGoalLine(find('PostgreSQL', 'GET /releases'), find('SQLite', 'GET /releases'), 0.5),
    ratioGoalLine(find('SQLite', 'GET /me'), findMeasured(measured, BARE), 0.5),
  ];
}

/** A self-signed pair for 127.0.0.1, made as the server makes its own, used by every server of the run. */
function printReport(measured: readonly Measured[]): void {
  const lines = [
    '',
    formatTable(measured, findMeasured(measured, BARE)),
    '',
    engineTable(measured),
    '',
    ...goalLines(measured),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function benchmark(run: Run): Promise<boolean> {
  process.stderr.write(`Preparing ${run.dir}\n`);
  const tls = await selfSignedTls(run.dir);
  const sqlite = await seededDatabase(run, 'sqlite', false);
  const postgres = await seededDatabase(run, 'postgres', true);
  const bare = await startHello(run, tls);
  const servers: Record<Engine, Server> = {
    SQLite: await startLabeldesk(
      run,
      'SQLite',
      { DATABASE_URL: '', REDIS_URL: '', LABELDESK_DATA_DIR: sqlite.dataDir },
      tls,
    ),
    PostgreSQL: await startLabeldesk(
      run,
      'PostgreSQL',
      { DATABASE_URL: postgres.url, REDIS_URL: '', LABELDESK_DATA_DIR: postgres.dataDir },
      tls,
    ),
    'PostgreSQL + Redis': await startLabeldesk(
      run,
      'PostgreSQL + Redis',
      { DATABASE_URL: postgres.url, REDIS_URL, LABELDESK_DATA_DIR: postgres.dataDir },
      tls,
    ),
  };
  const scenarios: Scenario[] = [
    { name: BARE, server: bare, path: '/', headers: {} },
    ...engineScenarios('SQLite', servers.SQLite, sqlite),
    ...engineScenarios('PostgreSQL', servers.PostgreSQL, postgres),
    ...engineScenarios('PostgreSQL + Redis', servers['PostgreSQL + Redis'], postgres),
  ];
  for (const scenario of scenarios) await warmUp(scenario, settings);
  const measured = await measureRounds(scenarios, settings);
  printReport(measured);

  const failures = failuresOf(measured);
  if (failures.length === 0) return true;
  process.stderr.write(`\nFAILED: every answer must be a 200.\n${failures.join('\n')}\n`);
  for (const child of run.children) {
    process.stderr.write(
      `${child.name}'s first 4xx and 5xx log lines:\n${failedLogLines(child.logFile, 5)}\n`,
    );
  }
  return false;
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

function reportFailure(error: unknown): number {
  process.stderr.write(`bench:engines: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

async function main(): Promise<number> {
  const run: Run = {
    dir: mkdtempSync(join(tmpdir(), 'labeldesk-bench-engines-')),
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

process.exit(await main().catch(reportFailure));
