// `npm run bench:links`: smart-link statistics at 10 million recorded views (statistics
// must stay fast at 10M link visits), on SQLite, or on PostgreSQL when
// BENCH_DATABASE_URL is set.
//
// One link collects a year of traffic, written through the counters its page writes (links-seed.ts).
// Then a server process on that database answers the statistics over HTTP, one request at a time,
// as a dashboard asks for them: the server's whole path plus a loopback round trip, which the
// `GET /me` row measures on its own.
import { join } from 'node:path';
import type { AppContext } from '../src/context.ts';
import { utcDay } from '../src/lib/dates.ts';
import { authenticateKey } from '../src/modules/keys/keys.service.ts';
import { isPlatformKey } from '../src/modules/platforms/platforms.catalog.ts';
import { createSmartLink } from '../src/modules/smart-links/smart-links.service.ts';
import { type BenchDatabase, settle } from './catalog-database.ts';
import { type Server, startServer, stopServer } from './catalog-memory.ts';
import { at, dataDirOf, openContext, prepareLabel, runBench } from './in-process.ts';
import { apiJson, numberAt } from './labeldesk.ts';
import {
  type Answer,
  goalVerdict,
  type LatencyScenario,
  latencyTable,
  type Send,
  type Timing,
  timeScenario,
} from './latency.ts';
import {
  DAYS_BEFORE_RELEASE,
  type LinkTraffic,
  PLATFORM_SHARES,
  type SeededTraffic,
  seedLinkTraffic,
} from './links-seed.ts';
import { positiveInteger } from './settings.ts';

/** The goal: each statistics answer within this many milliseconds (at p99), over HTTP. */
const GOAL_MS = 50;
/** The longest period the analytics accept (`days`). */
const MAX_PERIOD_DAYS = 365;
const DAY_MS = 86_400_000;

interface Settings {
  traffic: LinkTraffic;
  requests: number;
}

function readSettings(): Settings {
  return {
    traffic: {
      views: positiveInteger('BENCH_LINK_VIEWS', 10_000_000),
      days: positiveInteger('BENCH_LINK_DAYS', 365),
    },
    requests: positiveInteger('BENCH_REQUESTS', 200),
  };
}

interface SeededLink {
  id: number;
  traffic: SeededTraffic;
  seconds: number;
}

/**
 * The link, made through the service as if on the first day of its traffic (so its statistics
 * cover the whole year), with a target on each platform of the traffic.
 */
async function createLink(ctx: AppContext, key: string, firstDayMs: number) {
  const auth = await authenticateKey(ctx, key);
  if (!auth) throw new Error('the bench key does not authenticate');
  const then = at(ctx, new Date(firstDayMs + 9 * 3_600_000));
  return createSmartLink(then, auth, {
    title: 'Nightfall',
    artist_name: 'Mira Vale',
    release_date: utcDay(new Date(firstDayMs + DAYS_BEFORE_RELEASE * DAY_MS)),
    targets: PLATFORM_SHARES.map(([platform]) => {
      if (!isPlatformKey(platform)) throw new Error(`${platform} is not a platform key`);
      return { platform, url: `https://example.com/${platform}/nightfall` };
    }),
  });
}

async function seedLink(
  ctx: AppContext,
  prepared: { labelId: number; key: string },
  traffic: LinkTraffic,
): Promise<SeededLink> {
  const today = utcDay(ctx.clock.now());
  const firstDayMs = Date.parse(`${today}T00:00:00.000Z`) - (traffic.days - 1) * DAY_MS;
  const link = await createLink(ctx, prepared.key, firstDayMs);
  const targetIds = new Map(link.targets.map((target) => [target.platform as string, target.id]));
  const started = performance.now();
  const seeded = await seedLinkTraffic(
    ctx.db,
    { id: link.id, label_id: prepared.labelId },
    targetIds,
    traffic,
    today,
    (done) => {
      if (done % 30 === 0 || done === traffic.days)
        process.stderr.write(`\rseeding: day ${done} of ${traffic.days}`);
    },
  );
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`\nseeded in ${seconds.toFixed(1)} s\n`);
  return { id: link.id, traffic: seeded, seconds };
}

function scenariosFor(link: SeededLink, days: number): LatencyScenario[] {
  const period = Math.min(days, MAX_PERIOD_DAYS);
  return [
    { name: 'GET /api/v1/me (HTTP floor)', goalMs: null, url: () => '/api/v1/me' },
    {
      name: 'GET /smart-links/{id}/stats',
      goalMs: GOAL_MS,
      url: () => `/api/v1/smart-links/${link.id}/stats`,
    },
    {
      name: `GET /analytics/summary?days=${period}`,
      goalMs: GOAL_MS,
      url: () => `/api/v1/analytics/summary?days=${period}`,
    },
    {
      name: `GET /analytics/traffic?days=${period}`,
      goalMs: GOAL_MS,
      url: () => `/api/v1/analytics/traffic?days=${period}`,
    },
    { name: 'GET /analytics/summary (30 days)', goalMs: GOAL_MS, url: () => '/api/v1/analytics/summary' },
    { name: 'GET /analytics/traffic (30 days)', goalMs: GOAL_MS, url: () => '/api/v1/analytics/traffic' },
  ];
}

/** The views the answer counts (the link's, or the label's over the period), and its size. */
function foundIn({ body }: Answer): string {
  const parsed = JSON.parse(body) as {
    totals?: { views: number };
    smart_links?: { views: number };
    devices?: { views: number }[];
  };
  const views =
    parsed.totals?.views ??
    parsed.smart_links?.views ??
    parsed.devices?.reduce((sum, device) => sum + device.views, 0);
  const size = `${(Buffer.byteLength(body) / 1024).toFixed(1)} kB`;
  return views === undefined ? size : `${views} views, ${size}`;
}

/** Over HTTP with keep-alive, as a dashboard's client would ask. */
function httpSender(server: Server): Send {
  return async (url) => {
    const response = await fetch(`${server.origin}${url}`, { headers: server.headers });
    const body = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body };
  };
}

/** The server must see what was written: the link's own counters hold every view and click. */
async function checkCounters(server: Server, link: SeededLink): Promise<void> {
  const answer = await apiJson(server.origin, server.headers, {
    method: 'GET',
    path: `/api/v1/smart-links/${link.id}`,
  });
  const views = numberAt(answer, ['smart_link', 'views']);
  const clicks = numberAt(answer, ['smart_link', 'clicks']);
  if (views !== link.traffic.views || clicks !== link.traffic.clicks) {
    throw new Error(
      `the link counts ${views} views and ${clicks} clicks; ${link.traffic.views} and ${link.traffic.clicks} were written`,
    );
  }
}

async function measure(server: Server, link: SeededLink, settings: Settings): Promise<Timing[]> {
  const send = httpSender(server);
  const timings: Timing[] = [];
  for (const scenario of scenariosFor(link, settings.traffic.days)) {
    process.stderr.write(`measuring ${scenario.name}\n`);
    timings.push(await timeScenario(send, scenario, settings.requests, foundIn));
  }
  return timings;
}

function report(link: SeededLink, timings: readonly Timing[], settings: Settings, dialect: string): string {
  const { traffic } = link;
  return [
    `1 smart link with ${traffic.views} views and ${traffic.clicks} clicks over ${settings.traffic.days} days on ${dialect}, ` +
      `written through addToCounters a day at a time in ${link.seconds.toFixed(1)} s ` +
      `(${traffic.dayRows} smart_link_days rows, ${traffic.breakdownRows} smart_link_breakdowns rows)`,
    `${settings.requests} requests per row, one at a time, over HTTP (keep-alive) to a server process`,
    '(found: the views the answer counts, and its size)',
    '',
    latencyTable(timings),
    '',
    `Goal: statistics within ${GOAL_MS} ms at p99 with ${traffic.views} views recorded: ${goalVerdict(timings)}`,
  ].join('\n');
}

async function benchmark(dir: string, bench: BenchDatabase, settings: Settings): Promise<void> {
  const ctx = await openContext(dir, bench);
  const prepared = await prepareLabel(ctx, 'Links Bench');
  const link = await seedLink(ctx, prepared, settings.traffic);
  await settle(bench);
  const server = await startServer(dataDirOf(dir), bench.url, prepared.key, join(dir, 'server.log'));
  let timings: Timing[];
  try {
    await checkCounters(server, link);
    timings = await measure(server, link, settings);
  } finally {
    await stopServer(server);
  }
  process.stdout.write(`\n${report(link, timings, settings, ctx.dialect)}\n`);
}

const settings = readSettings();
process.exit(await runBench('bench:links', (dir, bench) => benchmark(dir, bench, settings)));
