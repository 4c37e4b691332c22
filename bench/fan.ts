// `npm run bench:fan`: a smart link's public page and its redirect (a button) under a crowd of fans,
// with 50 connections, against a bare Fastify "hello" in the same run, on SQLite and on PostgreSQL
// (issue 19). Every request comes from another client address with a browser's headers, so every
// answered view and click is one the counting rules accept; once the servers have stopped (SIGTERM,
// which flushes what they hold), the link's counters must have grown by what was answered in a last
// phase that sends an exact number of requests (a timed round leaves requests in flight when it ends,
// which the server answers and counts but the load generator never hears of).
//
// A client address of its own per request needs a trusted proxy's X-Forwarded-For, so Labeldesk runs
// as it does behind one (TRUST_PROXY=1, plain HTTP on the loopback address, TLS ending at the proxy).
// The goals are judged against bare Fastify over plain HTTP, which costs what Labeldesk's side does
// here; the ratio to bare Fastify over HTTPS (the reference, whose TLS Labeldesk does not pay
// here) is printed beside it.
//
// PostgreSQL is BENCH_POSTGRES_URL (default the local server's `postgres` database), where the run
// creates a database of its own and drops it at the end. BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP
// and BENCH_CONNECTIONS change the load (3 s, 3 rounds, 1 s, 50).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Result } from 'autocannon';
import { stopChild } from './children.ts';
import { failedLogLines } from './labeldesk.ts';
import {
  addressSequence,
  findMeasured,
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
  cleanUpOnSignal,
  type Run,
  type SeededDatabase,
  seededDatabase,
  startHello,
  startLabeldesk,
  VIA_PROXY,
} from './servers.ts';
import { selfSignedTls } from './tls.ts';

const settings = readLoadSettings({ durationS: 3, rounds: 3, warmupS: 1, connections: 50 });
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const BARE = 'bare Fastify (HTTP)';
const BARE_HTTPS = 'bare Fastify (HTTPS)';
const ENGINES = ['SQLite', 'PostgreSQL'] as const;
type Engine = (typeof ENGINES)[number];
/** Issue 19's goals: page and redirect against bare Fastify, per engine. */
const GOALS: Record<Engine, number> = { SQLite: 0.5, PostgreSQL: 0.35 };
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
  await stopChild(server.child);
  const after = await storedCounts(seeded);
  const gained = { views: after.views - before.views, clicks: after.clicks - before.clicks };
  const holds = gained.views === views && gained.clicks === clicks;
  return {
    holds,
    line: `counted on ${engine}: ${holds ? 'PASS' : 'FAIL'} (views ${gained.views} of ${views} answered, clicks ${gained.clicks} of ${clicks}; ${CHECKED_REQUESTS} of each sent)`,
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
        REDIS_URL: '',
        LABELDESK_DATA_DIR: seeded.dataDir,
      },
      null,
    );
  }
  const scenarios: Scenario[] = [
    { name: BARE, server: bare, path: '/', headers: {} },
    { name: BARE_HTTPS, server: bareHttps, path: '/', headers: {} },
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

function reportFailure(error: unknown): number {
  process.stderr.write(`bench:fan: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

async function main(): Promise<number> {
  const run: Run = { dir: mkdtempSync(join(tmpdir(), 'labeldesk-bench-fan-')), children: [], databases: [] };
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
