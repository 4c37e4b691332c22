import { setTimeout as sleep } from 'node:timers/promises';
import type { Result } from 'autocannon';
import { stopChild } from './children.ts';
import { failedLogLines } from './labeldesk.ts';
import {
  addressSequence,
  findMeasured,
  getOnce,
  measureRounds,
  readLoadSettings,
  type Scenario,
  type Server,
  sendExactly,
  visitorSequence,
  warmUp,
} from './load.ts';
import { failuresOf, formatRatio, formatTable, type Measured, ratioGoalLine } from './report.ts';
import {
  type Run,
  runServerBench,
  type SeededDatabase,
  seededDatabase,
  startHello,
  startLabeldesk,
  VIA_PROXY,
} from './servers.ts';
import { selfSignedTls } from './tls.ts';

const settings = readLoadSettings({ durationS: 3, rounds: 3, warmupS: 1, connections: 50 });
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';

const BARE = 'bare Fastify (HTTP)';
const BARE_HTTPS = 'bare Fastify (HTTPS)';
const ENGINES = ['SQLite', 'PostgreSQL', 'PostgreSQL + Redis'] as const;
type Engine = (typeof ENGINES)[number];
/**
 * Issue 19's goals: page and redirect against bare Fastify, per engine. With Redis, each counted
 * view also asks Redis for the shared per-client limit; it is held to PostgreSQL's goal.
 */
const GOALS: Record<Engine, number> = { SQLite: 0.5, PostgreSQL: 0.35, 'PostgreSQL + Redis': 0.35 };
const REQUESTS = ['smart-link page', 'smart-link redirect'] as const;
type RequestName = (typeof REQUESTS)[number];
/** The button the redirect scenario follows: the link's first target. */
const PLATFORM = 'spotify';

const scenarioName = (engine: Engine, request: RequestName) => `${engine} ${request}`;

/** A fan: a browser's headers, and an address of its own that a trusted proxy passes on. */
function fans(): () => Record<string, string> {
  const visitor = visitorSequence();
  const address = addressSequence();
  return () => ({ ...visitor(), ...VIA_PROXY, 'x-forwarded-for': address() });
}

function engineScenarios(engine: Engine, server: Server, seeded: SeededDatabase): Scenario[] {
  return [
    {
      name: scenarioName(engine, 'smart-link page'),
      server,
      path: seeded.linkPath,
      headers: { accept: 'text/html' },
      perRequestHeaders: fans(),
    },
    {
      name: scenarioName(engine, 'smart-link redirect'),
      server,
      path: `${seeded.linkPath}/go/${PLATFORM}`,
      headers: { accept: 'text/html' },
      perRequestHeaders: fans(),
      status: 302,
    },
  ];
}

/** Answers of the scenario's status: all of them, as `amount` was sent and awaited. */
const answered = (scenario: Scenario, result: Result): number =>
  result.statusCodeStats[String(scenario.status ?? 200)]?.count ?? 0;

/** The link's views and clicks as stored, once its server has stopped. */
async function storedCounts(seeded: SeededDatabase): Promise<{ views: number; clicks: number }> {
  const row = await seeded.bench.handle.db
    .selectFrom('smart_links')
    .select(['views', 'clicks'])
    .where('id', '=', seeded.smartLinkId)
    .executeTakeFirstOrThrow();
  return { views: Number(row.views), clicks: Number(row.clicks) };
}

/** The link's totals as `GET /smart-links/{id}/stats` shows them (it writes what is pending first). */
async function statsThroughApi(
  server: Server,
  seeded: SeededDatabase,
): Promise<{ views: number; clicks: number }> {
  const answer = await getOnce(server, `/api/v1/smart-links/${seeded.smartLinkId}/stats`, {
    ...VIA_PROXY,
    authorization: `Bearer ${seeded.key}`,
  });
  if (answer.status !== 200)
    throw new Error(`GET /stats answered ${answer.status}: ${answer.body.toString('utf8')}`);
  const { totals } = JSON.parse(answer.body.toString('utf8')) as {
    totals: { views: number; clicks: number };
  };
  return totals;
}

/** What a counting check sends: views and clicks, from fans of their own. */
const CHECKED_REQUESTS = 2000;
/** Longer than a flush interval, so requests still in flight after the load have been counted and written. */
const SETTLE_MS = 1000;

/**
 * Sends an exact number of views and clicks, stops the server (SIGTERM: it writes what it still
 * holds), and compares what the link's counters gained with what was answered.
 */
async function checkCounting(
  engine: Engine,
  server: Server,
  seeded: SeededDatabase,
): Promise<{ holds: boolean; line: string }> {
  await sleep(SETTLE_MS);
  const before = await storedCounts(seeded);
  const [page, redirect] = engineScenarios(engine, server, seeded);
  if (!page || !redirect) throw new Error('each engine has a page and a redirect scenario');
  const views = answered(page, await sendExactly(page, settings.connections, CHECKED_REQUESTS));
  const clicks = answered(redirect, await sendExactly(redirect, settings.connections, CHECKED_REQUESTS));
  const shown = await statsThroughApi(server, seeded);
  await stopChild(server.child);
  const after = await storedCounts(seeded);
  const gained = { views: after.views - before.views, clicks: after.clicks - before.clicks };
  const shownGained = { views: shown.views - before.views, clicks: shown.clicks - before.clicks };
  const holds =
    gained.views === views &&
    gained.clicks === clicks &&
    shownGained.views === views &&
    shownGained.clicks === clicks;
  return {
    holds,
    line: `counted on ${engine}: ${holds ? 'PASS' : 'FAIL'} (${CHECKED_REQUESTS} views and ${CHECKED_REQUESTS} clicks sent, ${views} and ${clicks} answered; GET /stats showed ${shownGained.views} and ${shownGained.clicks} more; stored after SIGTERM ${gained.views} and ${gained.clicks} more)`,
  };
}

function goalLines(measured: readonly Measured[]): string[] {
  const bare = findMeasured(measured, BARE);
  const bareHttps = findMeasured(measured, BARE_HTTPS);
  return ENGINES.flatMap((engine) =>
    REQUESTS.map((request) => {
      const scenario = findMeasured(measured, scenarioName(engine, request));
      return `${ratioGoalLine(scenario, bare, GOALS[engine])}; against ${BARE_HTTPS}: ${formatRatio(scenario, bareHttps)}`;
    }),
  );
}

async function benchmark(run: Run): Promise<boolean> {
  process.stderr.write(`Preparing ${run.dir}\n`);
  const tls = await selfSignedTls(run.dir);
  const databases: Record<Engine, SeededDatabase> = {
    SQLite: await seededDatabase(run, 'fan_sqlite', null),
    PostgreSQL: await seededDatabase(run, 'fan_postgres', POSTGRES_URL),
    'PostgreSQL + Redis': await seededDatabase(run, 'fan_postgres_redis', POSTGRES_URL),
  };
  const bare = await startHello(run, null);
  const bareHttps = await startHello(run, tls);
  const servers = {} as Record<Engine, Server>;
  for (const engine of ENGINES) {
    const seeded = databases[engine];
    servers[engine] = await startLabeldesk(
      run,
      engine,
      {
        DATABASE_URL: seeded.url,
        REDIS_URL: engine === 'PostgreSQL + Redis' ? REDIS_URL : '',
        LABELDESK_DATA_DIR: seeded.dataDir,
      },
      null,
    );
  }
  const scenarios: Scenario[] = [
    // The baselines are sent the same requests as Labeldesk: a fan's headers, new on every request,
    // cost the load generator more than a fixed request, and on a shared machine that cost would
    // otherwise count against Labeldesk alone.
    { name: BARE, server: bare, path: '/', headers: { accept: 'text/html' }, perRequestHeaders: fans() },
    {
      name: BARE_HTTPS,
      server: bareHttps,
      path: '/',
      headers: { accept: 'text/html' },
      perRequestHeaders: fans(),
    },
    ...ENGINES.flatMap((engine) => engineScenarios(engine, servers[engine], databases[engine])),
  ];
  for (const scenario of scenarios) await warmUp(scenario, settings);
  const measured = await measureRounds(scenarios, settings);
  const checks: string[] = [];
  let counted = true;
  for (const engine of ENGINES) {
    const check = await checkCounting(engine, servers[engine], databases[engine]);
    counted &&= check.holds;
    checks.push(check.line);
  }
  process.stdout.write(
    `${['', formatTable(measured, findMeasured(measured, BARE)), '', ...goalLines(measured), ...checks].join('\n')}\n`,
  );

  const failures = failuresOf(measured);
  if (failures.length === 0) return counted;
  process.stderr.write(
    `\nFAILED: every answer must be a 200 (302 for the redirect).\n${failures.join('\n')}\n`,
  );
  for (const child of run.children) {
    process.stderr.write(
      `${child.name}'s first 4xx and 5xx log lines:\n${failedLogLines(child.logFile, 5)}\n`,
    );
  }
  return false;
}

process.exit(await runServerBench('fan', benchmark));
