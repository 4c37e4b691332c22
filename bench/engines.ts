import type { HotPaths } from './hot-paths.ts';
import { failedLogLines } from './labeldesk.ts';
import {
  findMeasured,
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
import { type Run, runServerBench, seededDatabase, startHello, startLabeldesk } from './servers.ts';
import { selfSignedTls } from './tls.ts';

const settings = readLoadSettings({ durationS: 3, rounds: 3, warmupS: 1, connections: 50 });
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';

const BARE = 'bare Fastify';
const ENGINES = ['SQLite', 'PostgreSQL', 'PostgreSQL + Redis'] as const;
type Engine = (typeof ENGINES)[number];
const REQUESTS = ['GET /me', 'GET /releases', 'smart-link page'] as const;
type RequestName = (typeof REQUESTS)[number];

const scenarioName = (engine: Engine, request: RequestName) => `${engine} ${request}`;

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
  const sqlite = await seededDatabase(run, 'engines_sqlite', null);
  const postgres = await seededDatabase(run, 'engines_postgres', POSTGRES_URL);
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

process.exit(await runServerBench('engines', benchmark));
