// `npm run bench:catalog`: list, filter, sort and search latency at catalog scale, and the label console's pages:
// 100k releases and 1M tracks in one label, on SQLite, or on PostgreSQL when
// BENCH_DATABASE_URL is set. Then peak server memory while streaming a 200 MB upload in and the
// whole catalog out as CSV.
//
// Server time is measured in process: a timer around app.inject, one request at a time. That is
// the whole server path (routing, auth, rate limit, validation, queries, serialization, ETag)
// without sockets and TLS, and without the queueing a concurrent load generator adds to every
// request; light-my-request's own overhead is the `GET /plans` row.
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import type { AppContext } from '../src/context.ts';
import { MemoryRateLimiter } from '../src/http/rate-limiter.ts';
import { searchKey } from '../src/lib/text.ts';
import { type BenchDatabase, settle } from './catalog-database.ts';
import {
  type MemoryResult,
  measureExport,
  measureUpload,
  startServer,
  stopServer,
} from './catalog-memory.ts';
import {
  type CatalogSize,
  type Sample,
  type SeededEvents,
  type SeededFacts,
  seedCatalog,
  seedEvents,
} from './catalog-seed.ts';
import {
  CONSOLE_GOAL_MS,
  CONSOLE_WEIGHT_GOAL_BYTES,
  consoleScenarios,
  ownerSession,
  weightOf,
  weightVerdict,
} from './console-pages.ts';
import { openContext, prepareLabel, runBench } from './in-process.ts';
import {
  type Answer,
  goalVerdict,
  type LatencyScenario,
  latencyTable,
  type Send,
  type Timing,
  timeScenario,
} from './latency.ts';
import { formatGrid } from './report.ts';
import { positiveInteger } from './settings.ts';

/** The goal: each of these answers within this many milliseconds of server time (at p99). */
const GOAL_MS = 20;
/** The event feed's goal: a page within this many milliseconds (at p99) with a million stored events. */
const EVENTS_GOAL_MS = 10;
/** A server may grow by less than this while it takes a 200 MB upload. */
const UPLOAD_GOAL_MB = 64;

interface Settings {
  size: CatalogSize;
  /** Events stored in the label's feed. */
  events: number;
  requests: number;
  uploadBytes: number;
}

function readSettings(): Settings {
  return {
    size: {
      releases: positiveInteger('BENCH_RELEASES', 100_000),
      tracksPerRelease: positiveInteger('BENCH_TRACKS_PER_RELEASE', 10),
      artists: positiveInteger('BENCH_ARTISTS', 5_000),
    },
    events: positiveInteger('BENCH_EVENTS', 1_000_000),
    requests: positiveInteger('BENCH_REQUESTS', 200),
    uploadBytes: positiveInteger('BENCH_UPLOAD_MB', 200) * 1024 * 1024,
  };
}

type Scenario = LatencyScenario;

function sampleAt(facts: SeededFacts, i: number): Sample {
  const sample = facts.samples[i % facts.samples.length];
  if (!sample) throw new Error('the seeded catalog has no samples');
  return sample;
}

function releaseScenarios(facts: SeededFacts, size: CatalogSize): Scenario[] {
  const lastPage = Math.ceil(size.releases / 20);
  const ids = facts.samples.map((sample) => sample.releaseId).join(',');
  const list = (name: string, query: (i: number) => string): Scenario => ({
    name: `GET /releases${name}`,
    goalMs: GOAL_MS,
    url: (i) => `/api/v1/releases${query(i)}`,
  });
  return [
    list(' (page 1)', () => ''),
    list(` ?page=${lastPage} (last)`, () => `?page=${lastPage}`),
    list(' ?per_page=100', () => '?per_page=100'),
    list(' ?status=live', () => '?status=live'),
    list(' ?status=draft', () => '?status=draft'),
    list(' ?status=takedown', () => '?status=takedown'),
    list(' ?artist_id=', (i) => `?artist_id=${sampleAt(facts, i).artistId}`),
    list(' ?upc=', (i) => `?upc=${sampleAt(facts, i).upc}`),
    list(` ?ids= (${facts.samples.length})`, () => `?ids=${ids}`),
    list(' ?updated_since= (last tenth)', () => `?updated_since=${facts.updatedSince}`),
    list(' ?sort=created_at', () => '?sort=created_at'),
    list(' ?sort=-release_date', () => '?sort=-release_date'),
    list(' ?sort=release_date', () => '?sort=release_date'),
    list(' ?sort=title', () => '?sort=title'),
    list(' ?status=live&sort=title', () => '?status=live&sort=title'),
  ];
}

function trackScenarios(facts: SeededFacts, size: CatalogSize): Scenario[] {
  const tracks = size.releases * size.tracksPerRelease;
  const lastPage = Math.ceil(tracks / 20);
  const { common, rare } = facts.words;
  return [
    {
      name: 'GET /tracks ?isrc=',
      goalMs: GOAL_MS,
      url: (i) => `/api/v1/tracks?isrc=${sampleAt(facts, i).isrc}`,
    },
    {
      name: 'GET /tracks ?release_id=',
      goalMs: GOAL_MS,
      url: (i) => `/api/v1/tracks?release_id=${sampleAt(facts, i).releaseId}`,
    },
    { name: 'GET /tracks (page 1)', goalMs: null, url: () => '/api/v1/tracks' },
    {
      name: `GET /tracks ?page=${lastPage} (last)`,
      goalMs: null,
      url: () => `/api/v1/tracks?page=${lastPage}`,
    },
    { name: `GET /tracks ?q=${common} (common)`, goalMs: null, url: () => `/api/v1/tracks?q=${common}` },
    { name: `GET /tracks ?q=${rare} (rare)`, goalMs: null, url: () => `/api/v1/tracks?q=${rare}` },
  ];
}

function searchScenarios(facts: SeededFacts): Scenario[] {
  const search = (label: string, q: (i: number) => string): Scenario => ({
    name: `GET /search ?q=${label}`,
    goalMs: GOAL_MS,
    url: (i) => `/api/v1/search?q=${encodeURIComponent(q(i))}`,
  });
  const { common, rare, cyrillic, twoLetters, absent } = facts.words;
  return [
    search(`${common} (common word)`, () => common),
    search(`${rare} (rare word)`, () => rare),
    search(`${cyrillic.toUpperCase()} (Cyrillic, other case)`, () => cyrillic.toUpperCase()),
    search(`${twoLetters} (2 letters)`, () => twoLetters),
    search(`${absent} (no match)`, () => absent),
    search('<UPC>', (i) => sampleAt(facts, i).upc),
    search('<first 8 UPC digits>', (i) => sampleAt(facts, i).upc.slice(0, 8)),
    search('<ISRC>', (i) => sampleAt(facts, i).isrc),
  ];
}

function eventScenarios(events: SeededEvents): Scenario[] {
  return [
    { name: 'GET /events (first page)', goalMs: EVENTS_GOAL_MS, url: () => '/api/v1/events' },
    {
      name: 'GET /events ?after=<middle>&limit=200',
      goalMs: EVENTS_GOAL_MS,
      url: () => `/api/v1/events?after=${events.middleId}&limit=200`,
    },
    {
      name: 'GET /events ?types=release.live (1 in 100)',
      goalMs: EVENTS_GOAL_MS,
      url: () => `/api/v1/events?after=${events.middleId}&types=release.live`,
    },
    {
      name: 'GET /events ?after=<newest - 50>',
      goalMs: EVENTS_GOAL_MS,
      url: () => `/api/v1/events?after=${events.lastId - 50}`,
    },
  ];
}

function scenariosFor(facts: SeededFacts, size: CatalogSize, events: SeededEvents): Scenario[] {
  return [
    { name: 'GET /plans (inject floor)', goalMs: null, url: () => '/api/v1/plans' },
    ...releaseScenarios(facts, size),
    ...trackScenarios(facts, size),
    ...searchScenarios(facts),
    { name: 'GET /reports/catalog-health', goalMs: null, url: () => '/api/v1/reports/catalog-health' },
    ...eventScenarios(events),
  ];
}

/** What the last answer found: X-Total-Count, or result counts of a search. */
function foundIn({ headers, body }: Answer): string {
  const total = headers['x-total-count'];
  if (total !== undefined) return String(total);
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null || !('releases' in parsed)) return '';
  const { releases, artists, tracks } = parsed as Record<string, unknown[]>;
  return `${releases?.length ?? 0}/${artists?.length ?? 0}/${tracks?.length ?? 0}`;
}

function latencyReport(timings: readonly Timing[], settings: Settings, dialect: string): string {
  return [
    `${settings.size.releases} releases, ${settings.size.releases * settings.size.tracksPerRelease} tracks, ${settings.size.artists} artists in one label on ${dialect}; ${settings.requests} requests per row, one at a time`,
    '(found: X-Total-Count, or releases/artists/tracks found by a search)',
    '',
    latencyTable(timings),
    '',
    `Goal: every goal row answers within its goal at p99 (${GOAL_MS} ms for the catalog, ${EVENTS_GOAL_MS} ms for the event feed): ${goalVerdict(timings)}`,
  ].join('\n');
}

function consoleReport(pages: readonly Timing[]): string {
  return [
    'The label console, signed in as the owner (found: the page with its stylesheet)',
    '',
    latencyTable(pages),
    '',
    `Goal: every console page within ${CONSOLE_GOAL_MS} ms of server time at p99: ${goalVerdict(pages)}`,
    `Goal: every console page under ${CONSOLE_WEIGHT_GOAL_BYTES / 1024} KB of HTML and CSS: ${weightVerdict(pages)}`,
  ].join('\n');
}

function memoryReport(results: readonly MemoryResult[]): string {
  const megabytes = (kb: number | null) => (kb === null ? 'n/a' : (kb / 1024).toFixed(1));
  const rows = results.map((result) => [
    result.name,
    String(result.status),
    (result.bytes / 1024 / 1024).toFixed(1),
    result.seconds.toFixed(1),
    megabytes(result.growthKb),
  ]);
  const upload = results.find((result) => result.name.startsWith('POST'));
  const growth = upload?.growthKb ?? null;
  const verdict =
    growth === null ? 'not measured' : growth / 1024 < UPLOAD_GOAL_MB ? 'holds' : 'DOES NOT hold';
  return [
    formatGrid(['transfer (server process)', 'status', 'MB', 's', 'peak RSS growth MB'], rows),
    '',
    `Goal: the server grows by less than ${UPLOAD_GOAL_MB} MB while taking the upload: ${verdict}`,
  ].join('\n');
}

/** A draft album to upload into, written directly like the seeded catalog. */
async function givenDraft(ctx: AppContext, labelId: number, artistId: number): Promise<number> {
  const at = systemClock.now().toISOString();
  const row = await ctx.db
    .insertInto('releases')
    .values({
      label_id: labelId,
      artist_id: artistId,
      type: 'album',
      title: 'Upload Target',
      title_key: searchKey('Upload Target'),
      genre: 'Pop',
      release_date: '2030-01-01',
      territories: '"worldwide"',
      featured_artists: '[]',
      store_links: '{}',
      status: 'draft',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function seed(ctx: AppContext, labelId: number, size: CatalogSize): Promise<SeededFacts> {
  const started = performance.now();
  const facts = await seedCatalog(ctx.db, labelId, size, (done) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    process.stderr.write(`\rseeding: ${done} of ${size.releases} releases (${seconds} s)`);
  });
  process.stderr.write(`\nseeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return facts;
}

async function measureLatency(
  ctx: AppContext,
  labelId: number,
  key: string,
  facts: SeededFacts,
  events: SeededEvents,
  settings: Settings,
) {
  const app = await buildApp(ctx, { limiter: new MemoryRateLimiter() });
  await app.ready();
  const headers = { authorization: `Bearer ${key}` };
  const send: Send = async (url) => {
    const response = await app.inject({ method: 'GET', url, headers });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  };
  const cookie = `labeldesk_session=${await ownerSession(ctx, labelId)}`;
  const sendSignedIn: Send = async (url) => {
    const response = await app.inject({ method: 'GET', url, headers: { cookie } });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  };
  try {
    const timings: Timing[] = [];
    for (const scenario of scenariosFor(facts, settings.size, events)) {
      process.stderr.write(`measuring ${scenario.name}\n`);
      timings.push(await timeScenario(send, scenario, settings.requests, foundIn));
    }
    const pages: Timing[] = [];
    for (const scenario of consoleScenarios(facts, settings.size.releases)) {
      process.stderr.write(`measuring ${scenario.name}\n`);
      pages.push(await timeScenario(sendSignedIn, scenario, settings.requests, weightOf));
    }
    return { timings, pages };
  } finally {
    await app.close();
  }
}

async function measureMemory(
  ctx: AppContext,
  bench: BenchDatabase,
  dir: string,
  prepared: { labelId: number; key: string },
  facts: SeededFacts,
  uploadBytes: number,
): Promise<MemoryResult[]> {
  const releaseId = await givenDraft(ctx, prepared.labelId, sampleAt(facts, 0).artistId);
  const server = await startServer(ctx.config.dataDir, bench.url, prepared.key, join(dir, 'server.log'));
  try {
    process.stderr.write('measuring the upload\n');
    const upload = await measureUpload(server, releaseId, uploadBytes);
    process.stderr.write('measuring the export\n');
    return [upload, await measureExport(server)];
  } finally {
    await stopServer(server);
  }
}

async function benchmark(dir: string, bench: BenchDatabase, settings: Settings): Promise<void> {
  const ctx = await openContext(dir, bench);
  const prepared = await prepareLabel(ctx, 'Catalog Bench');
  const facts = await seed(ctx, prepared.labelId, settings.size);
  const started = performance.now();
  const events = await seedEvents(ctx.db, prepared.labelId, settings.events);
  process.stderr.write(
    `${settings.events} events seeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  await settle(bench);
  const { timings, pages } = await measureLatency(
    ctx,
    prepared.labelId,
    prepared.key,
    facts,
    events,
    settings,
  );
  const memory = await measureMemory(ctx, bench, dir, prepared, facts, settings.uploadBytes);
  process.stdout.write(
    `\n${latencyReport(timings, settings, ctx.dialect)}\n\n${consoleReport(pages)}\n\n${memoryReport(memory)}\n`,
  );
}

const settings = readSettings();
process.exit(await runBench('bench:catalog', (dir, bench) => benchmark(dir, bench, settings)));
