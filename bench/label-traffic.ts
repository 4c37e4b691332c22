// `npm run bench:label-traffic`: label-wide analytics of a busy label (issue 19), on SQLite and on
// PostgreSQL in one run. The label has 50 smart links, each with a year of traffic written through
// the counters their pages write (label-traffic-seed.ts). A server process on each database answers
// `GET /analytics/traffic` and `/analytics/summary` over HTTPS, one request at a time, as a
// dashboard asks for them; the goal is p99 under 50 ms for a 365-day period.
//
// The baseline is the reads these answers made before the label rollups: every link's day and
// breakdown rows of the period (label-traffic-baseline.ts). Both sets of queries are timed in this
// process on the same database in the same run, and must find the same counts.
//
// PostgreSQL is a database the run creates on BENCH_POSTGRES_URL's server (default the local
// server's `postgres` database) and drops at the end. BENCH_ENGINES (`sqlite,postgres`),
// BENCH_LABEL_LINKS (50), BENCH_LINK_VIEWS (views of an average link over its year, 200000),
// BENCH_LINK_DAYS (365) and BENCH_REQUESTS (200) change the run.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../src/db/database.ts';
import { addDays, utcDay } from '../src/lib/dates.ts';
import { breakdownOfLabel, daysOfLabel, topLinksOfLabel } from '../src/modules/smart-links/index.ts';
import { type BenchDatabase, openBenchDatabase, openFreshPostgres, settle } from './catalog-database.ts';
import { type Child, freePort, LOOPBACK, startNodeChild, stopChild, waitUntil } from './children.ts';
import { dataDirOf, openContext, prepareLabel } from './in-process.ts';
import {
  breakdownOfLabelPerLink,
  daysOfLabelPerLink,
  presavesSincePerSignUp,
  topLinksOfLabelPerLink,
} from './label-traffic-baseline.ts';
import { type LabelTraffic, type SeededLabel, seedLabelTraffic } from './label-traffic-seed.ts';
import { labeldeskEnv, REPO_ROOT } from './labeldesk.ts';
import { type Answer, latencyTable, type Send, type Timing, timeScenario } from './latency.ts';
import { getOnce, type Server } from './load.ts';
import { percentile } from './report.ts';
import { type BenchEngine, benchEngines, positiveInteger } from './settings.ts';
import { selfSignedTls, type Tls } from './tls.ts';

const GOAL_MS = 50;
const TOP_LINKS = 10;
const TRAFFIC_DIMENSIONS = ['source', 'device', 'language', 'hour'] as const;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ENGINES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;
type EngineKey = BenchEngine;

interface Settings {
  engines: EngineKey[];
  traffic: LabelTraffic;
  requests: number;
}

function readSettings(): Settings {
  return {
    engines: benchEngines(),
    traffic: {
      links: positiveInteger('BENCH_LABEL_LINKS', 50),
      viewsPerLink: positiveInteger('BENCH_LINK_VIEWS', 200_000),
      days: positiveInteger('BENCH_LINK_DAYS', 365),
    },
    requests: positiveInteger('BENCH_REQUESTS', 200),
  };
}

interface Run {
  dir: string;
  children: Child[];
  databases: BenchDatabase[];
}

interface EngineResult {
  engine: string;
  seeded: SeededLabel;
  seconds: number;
  timings: Timing[];
  failures: string[];
}

async function openEngineDatabase(run: Run, engine: EngineKey, dir: string): Promise<BenchDatabase> {
  const bench =
    engine === 'postgres'
      ? await openFreshPostgres(POSTGRES_URL, dataDirOf(dir), 'labeldesk_bench_label_traffic')
      : await openBenchDatabase(dataDirOf(dir), null);
  run.databases.push(bench);
  return bench;
}

/** Labeldesk serving HTTPS itself, as it does without a proxy. */
async function startLabeldesk(run: Run, dir: string, bench: BenchDatabase, tls: Tls): Promise<Server> {
  const port = await freePort();
  const child = startNodeChild('labeldesk', ['bin/labeldesk.js', 'serve'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(dataDirOf(dir), {
      ...tls.env,
      DATABASE_URL: bench.url,
      PORT: String(port),
      HOST: LOOPBACK,
    }),
    logFile: join(dir, 'labeldesk.log'),
  });
  run.children.push(child);
  const server = { child, origin: `https://${LOOPBACK}:${port}`, ca: tls.cert };
  await waitUntil(child, `${server.origin}/api/v1/status`, () => getOnce(server, '/api/v1/status', {}));
  return server;
}

function httpsSender(server: Server, key: string): Send {
  return async (url) => {
    const answer = await getOnce(server, url, { authorization: `Bearer ${key}` });
    return { status: answer.status, headers: answer.headers, body: answer.body.toString('utf8') };
  };
}

/** Runs the queries of an answer in this process, as the server would; the answer is their counts. */
function querySender(queries: () => Promise<unknown>): Send {
  return async () => ({ status: 200, headers: {}, body: JSON.stringify(await queries()) });
}

const periodStart = (days: number) => addDays(utcDay(new Date()), 1 - days);

interface Counted {
  views?: number;
  top?: number;
}

/** The views the answer counts (summed over devices for traffic), and its first link's views. */
function countedIn(body: string): Counted {
  const parsed = JSON.parse(body) as {
    smart_links?: { views: number };
    devices?: { views: number }[];
    top_links?: { views: number }[];
    views?: number;
    top?: number;
  };
  return {
    views:
      parsed.views ??
      parsed.smart_links?.views ??
      parsed.devices?.reduce((sum, device) => sum + device.views, 0),
    top: parsed.top ?? parsed.top_links?.[0]?.views,
  };
}

const foundIn = ({ body }: Answer) => {
  const { views, top } = countedIn(body);
  return `${views ?? '?'} views, top link ${top ?? '?'}`;
};

const sumOf = (rows: readonly { views?: unknown; count?: unknown; dimension?: string }[]) =>
  rows.reduce((sum, row) => sum + Number(row.views ?? (row.dimension === 'device' ? row.count : 0)), 0);

interface Row {
  name: string;
  goalMs: number | null;
  /** The request, or for reads in process the name of the row. */
  url: string;
  send: Send;
}

const readsRow = (name: string, queries: () => Promise<unknown>): Row => ({
  name,
  goalMs: null,
  url: name,
  send: querySender(queries),
});

/** The reads the traffic and summary answers make, from the rollups and from every link's rows. */
function queryScenarios(db: Db, labelId: number, days: number): Row[] {
  const from = periodStart(days);
  const rollupTraffic = async () => {
    const [breakdown, top] = await Promise.all([
      breakdownOfLabel(db, labelId, TRAFFIC_DIMENSIONS, from),
      topLinksOfLabel(db, labelId, from, TOP_LINKS),
    ]);
    return { views: sumOf(breakdown), top: top[0]?.views };
  };
  const perLinkTraffic = async () => {
    const [breakdown, top] = await Promise.all([
      breakdownOfLabelPerLink(db, labelId, TRAFFIC_DIMENSIONS, from),
      topLinksOfLabelPerLink(db, labelId, from, TOP_LINKS),
    ]);
    return { views: sumOf(breakdown), top: Number(top[0]?.views) };
  };
  const rollupSummary = async () => {
    const [daily, top] = await Promise.all([
      daysOfLabel(db, labelId, from),
      topLinksOfLabel(db, labelId, from, TOP_LINKS),
    ]);
    return { views: sumOf(daily), top: top[0]?.views };
  };
  const perLinkSummary = async () => {
    const [daily, , top] = await Promise.all([
      daysOfLabelPerLink(db, labelId, from),
      presavesSincePerSignUp(db, labelId, `${from}T00:00:00.000Z`),
      topLinksOfLabelPerLink(db, labelId, from, TOP_LINKS),
    ]);
    return { views: sumOf(daily), top: Number(top[0]?.views) };
  };
  return [
    readsRow(`traffic?days=${days} reads: label rollups`, rollupTraffic),
    readsRow(`traffic?days=${days} reads: per-link rows (before)`, perLinkTraffic),
    readsRow(`summary?days=${days} reads: label rollups`, rollupSummary),
    readsRow(`summary?days=${days} reads: per-link rows (before)`, perLinkSummary),
  ];
}

function httpScenarios(server: Server, key: string, days: number): Row[] {
  const send = httpsSender(server, key);
  return ['traffic', 'summary'].map((path) => ({
    name: `HTTPS GET /analytics/${path}?days=${days}`,
    goalMs: GOAL_MS,
    url: `/api/v1/analytics/${path}?days=${days}`,
    send,
  }));
}

/** Every way of reading a period must count what was seeded, and the two reads the same. */
function checkCounts(timings: readonly Timing[], seeded: SeededLabel, days: number): string[] {
  const failures: string[] = [];
  const whole = timings.filter((timing) => timing.scenario.name.includes(`days=${days}`));
  for (const timing of whole) {
    const views = Number(timing.found.split(' ')[0]);
    if (views !== seeded.views) {
      failures.push(`${timing.scenario.name} counts ${views} views; ${seeded.views} were written`);
    }
  }
  const tops = new Set(whole.map((timing) => timing.found.split('top link ')[1]));
  if (tops.size !== 1) failures.push(`the top link's views differ between reads: ${[...tops].join(', ')}`);
  return failures;
}

async function measureEngine(
  run: Run,
  engine: EngineKey,
  settings: Settings,
  tls: Tls,
): Promise<EngineResult> {
  const name = ENGINES[engine];
  const dir = join(run.dir, engine);
  mkdirSync(dir);
  const bench = await openEngineDatabase(run, engine, dir);
  const ctx = await openContext(dir, bench);
  const prepared = await prepareLabel(ctx, 'Label Traffic Bench');
  const started = performance.now();
  const seeded = await seedLabelTraffic(ctx, prepared, settings.traffic, (done) =>
    process.stderr.write(`\r${name}: seeded link ${done} of ${settings.traffic.links}`),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`\n${name}: seeded in ${seconds.toFixed(1)} s\n`);
  await settle(bench);
  const server = await startLabeldesk(run, dir, bench, tls);
  const longest = settings.traffic.days;
  const scenarios = [
    ...httpScenarios(server, prepared.key, longest),
    ...httpScenarios(server, prepared.key, 30),
    ...queryScenarios(bench.handle.db, prepared.labelId, longest),
  ];
  const timings: Timing[] = [];
  for (const scenario of scenarios) {
    process.stderr.write(`${name}: measuring ${scenario.name}\n`);
    const latency = { name: `${name} ${scenario.name}`, goalMs: scenario.goalMs, url: () => scenario.url };
    timings.push(await timeScenario(scenario.send, latency, settings.requests, foundIn));
  }
  await stopChild(server.child);
  const failures = checkCounts(timings, seeded, longest);
  return { engine: name, seeded, seconds, timings, failures };
}

const p99 = (timing: Timing | undefined) =>
  timing
    ? percentile(
        [...timing.ms].sort((a, b) => a - b),
        99,
      )
    : Number.NaN;

function goalLines(result: EngineResult, days: number): string[] {
  const find = (suffix: string) =>
    result.timings.find((timing) => timing.scenario.name === `${result.engine} ${suffix}`);
  return ['traffic', 'summary'].flatMap((path) => {
    const http = p99(find(`HTTPS GET /analytics/${path}?days=${days}`));
    const rollup = p99(find(`${path}?days=${days} reads: label rollups`));
    const perLink = p99(find(`${path}?days=${days} reads: per-link rows (before)`));
    return [
      `goal: /analytics/${path}?days=${days} p99 < ${GOAL_MS} ms on ${result.engine}: ` +
        `${http < GOAL_MS ? 'PASS' : 'FAIL'} (p99 ${http.toFixed(1)} ms)`,
      `  baseline on ${result.engine}: its reads take p99 ${perLink.toFixed(1)} ms from every link's rows, ` +
        `${rollup.toFixed(1)} ms from the label rollups (${(perLink / rollup).toFixed(1)}x)`,
    ];
  });
}

function report(results: readonly EngineResult[], settings: Settings): string {
  const { links, days } = settings.traffic;
  const lines: string[] = [
    '',
    `1 label with ${links} smart links, each with ${days} days of traffic, written through addToCounters`,
    `${settings.requests} requests per row, one at a time: HTTPS to a server process, or the reads alone in process`,
    '',
  ];
  for (const result of results) {
    const { seeded } = result;
    lines.push(
      `${result.engine}: ${seeded.views} views and ${seeded.clicks} clicks seeded in ${result.seconds.toFixed(1)} s ` +
        `(${seeded.linkDayRows} smart_link_days rows, ${seeded.linkBreakdownRows} smart_link_breakdowns rows)`,
    );
  }
  lines.push('', latencyTable(results.flatMap((result) => result.timings)), '');
  for (const result of results) lines.push(...goalLines(result, days));
  for (const result of results) lines.push(...result.failures.map((failure) => `FAILED: ${failure}`));
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<number> {
  const settings = readSettings();
  const run: Run = {
    dir: mkdtempSync(join(tmpdir(), 'labeldesk-bench-label-traffic-')),
    children: [],
    databases: [],
  };
  const cleanUp = async () => {
    await Promise.all(run.children.map(stopChild));
    await Promise.allSettled(run.databases.map((bench) => bench.drop()));
    rmSync(run.dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void cleanUp().finally(() => process.exit(1));
    });
  }
  try {
    const tls = await selfSignedTls(run.dir);
    const results: EngineResult[] = [];
    for (const engine of settings.engines) results.push(await measureEngine(run, engine, settings, tls));
    process.stdout.write(report(results, settings));
    return results.some((result) => result.failures.length > 0) ? 1 : 0;
  } catch (error) {
    process.stderr.write(`bench:label-traffic: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await cleanUp();
  }
}

process.exit(await main());
