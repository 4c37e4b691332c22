// `npm run bench`: Labeldesk against a bare Fastify "hello" on the same machine, in one run, reported
// as ratios because absolute numbers drift on a shared machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon, { type RequestStep, type Result } from 'autocannon';
import {
  type Child,
  cpuTimeMs,
  freePort,
  killChildNow,
  LOOPBACK,
  peakRssKb,
  startNodeChild,
  stopChild,
  waitUntilAnswering,
} from './children.ts';
import {
  apiJson,
  failedLogLines,
  labeldeskEnv,
  numberAt,
  prepareDataDir,
  REPO_ROOT,
  stringAt,
} from './labeldesk.ts';
import {
  expectedAnswers,
  failuresOf,
  formatMegabytes,
  formatTable,
  goalLine,
  type Measured,
  type Round,
} from './report.ts';
import { positiveNumber } from './settings.ts';

interface Settings {
  /** Measured seconds per scenario and round. */
  durationS: number;
  rounds: number;
  warmupS: number;
  connections: number;
  /** Where the Labeldesk child writes a V8 CPU profile, when set. */
  profileDir: string | null;
}

interface Server {
  child: Child;
  origin: string;
}

interface Scenario {
  name: string;
  server: Server;
  path: string;
  headers: Record<string, string>;
  /** Headers that must differ on every request, such as the client address for per-address limits. */
  perRequestHeaders?: () => Record<string, string>;
  /** The status every answer must have; 200 unless said (302 for a redirect). */
  status?: number;
}

function readSettings(): Settings {
  return {
    durationS: positiveNumber('BENCH_DURATION', 4),
    rounds: Math.round(positiveNumber('BENCH_ROUNDS', 5)),
    warmupS: positiveNumber('BENCH_WARMUP', 2),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 50)),
    profileDir: process.env.BENCH_PROFILE_DIR ? resolve(process.env.BENCH_PROFILE_DIR) : null,
  };
}

/**
 * A new 10.x.y.z address per call. GET /status allows 30 requests a minute per address; the server
 * trusts X-Forwarded-For, so a fresh address per request keeps every answer a real 200.
 */
function addressSequence(): () => string {
  let n = 0;
  return () => {
    n = (n + 1) % 0x1000000;
    return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  };
}

function requestSteps(scenario: Scenario): RequestStep[] {
  const { perRequestHeaders } = scenario;
  if (!perRequestHeaders) return [{ method: 'GET', path: scenario.path }];
  return [
    {
      method: 'GET',
      path: scenario.path,
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...perRequestHeaders() } }),
    },
  ];
}

function drive(scenario: Scenario, settings: Settings, durationS: number): Promise<Result> {
  return autocannon({
    url: `${scenario.server.origin}${scenario.path}`,
    title: scenario.name,
    connections: settings.connections,
    duration: durationS,
    headers: scenario.headers,
    requests: requestSteps(scenario),
  });
}

function headersOnce(scenario: Scenario): Record<string, string> {
  return { ...scenario.headers, ...scenario.perRequestHeaders?.() };
}

const statusOf = (scenario: Scenario): number => scenario.status ?? 200;

/**
 * One request before the load, so a misconfigured scenario fails with its answer rather than a
 * count. A redirect is not followed, as autocannon does not follow it.
 */
async function expectStatus(scenario: Scenario): Promise<void> {
  const response = await fetch(`${scenario.server.origin}${scenario.path}`, {
    headers: headersOnce(scenario),
    redirect: 'manual',
    signal: AbortSignal.timeout(5_000),
  });
  const body = await response.text();
  if (response.status !== statusOf(scenario)) {
    throw new Error(`${scenario.name} answered ${response.status} before the load: ${body.slice(0, 300)}`);
  }
}

async function warmUp(scenario: Scenario, settings: Settings): Promise<void> {
  await expectStatus(scenario);
  // The warm-up lets V8 optimise the hot path; its numbers are dropped.
  await drive(scenario, settings, settings.warmupS);
}

async function measureRound(scenario: Scenario, settings: Settings): Promise<Round> {
  const cpuBefore = cpuTimeMs(scenario.server.child);
  const result = await drive(scenario, settings, settings.durationS);
  const cpuAfter = cpuTimeMs(scenario.server.child);
  return { result, cpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null };
}

/** The scenarios take turns, round after round, so a slow spell of the machine is shared among them. */
async function measureRounds(scenarios: readonly Scenario[], settings: Settings): Promise<Measured[]> {
  const measured: Measured[] = scenarios.map((scenario) => ({
    scenario: scenario.name,
    status: statusOf(scenario),
    rounds: [],
  }));
  for (let round = 1; round <= settings.rounds; round++) {
    process.stderr.write(`round ${round} of ${settings.rounds}: ${settings.durationS} s per scenario\n`);
    for (const [i, scenario] of scenarios.entries()) {
      measured[i]?.rounds.push(await measureRound(scenario, settings));
    }
  }
  return measured;
}

async function startHello(dir: string): Promise<Server> {
  const port = await freePort();
  // Through tsx, as it is TypeScript; a loader costs start-up time, not the steady state measured here.
  const child = startNodeChild('hello server', ['--import', 'tsx', 'bench/hello-server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port) },
    logFile: join(dir, 'hello.log'),
  });
  const origin = `http://${LOOPBACK}:${port}`;
  return { child, origin };
}

/** Plain HTTP behind a pretend proxy, like the baseline, so the comparison is application work and not TLS. */
async function startLabeldesk(dir: string, settings: Settings): Promise<Server> {
  const port = await freePort();
  const profiling = settings.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.profileDir}`] : [];
  const child = startNodeChild('labeldesk', [...profiling, 'bin/labeldesk.js', 'serve'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(join(dir, 'data'), { PORT: String(port), HOST: LOOPBACK, TRUST_PROXY: '1' }),
    logFile: join(dir, 'labeldesk.log'),
  });
  return { child, origin: `http://${LOOPBACK}:${port}` };
}

const BASELINE = 'baseline GET /';
const ME = 'GET /api/v1/me';
const PAGE = 'smart-link page GET /l/{code}';
const REDIRECT = 'smart-link redirect GET /l/{code}/go/spotify';

const VIA_PROXY = { 'x-forwarded-proto': 'https' };

/** A released single with a target on six platforms; the page's first button is Spotify. */
const LINK = {
  title: 'Nightfall',
  artist_name: 'Mira Vale',
  release_date: '2025-01-10',
  targets: [
    { platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' },
    { platform: 'apple_music', url: 'https://music.apple.com/us/album/nightfall/1440857781' },
    { platform: 'youtube_music', url: 'https://music.youtube.com/playlist?list=OLAK5uy_nightfall' },
    { platform: 'amazon_music', url: 'https://music.amazon.com/albums/B07NIGHTFALL' },
    { platform: 'deezer', url: 'https://www.deezer.com/album/90210' },
    { platform: 'tidal', url: 'https://listen.tidal.com/album/90210' },
  ],
};

interface BenchLink {
  id: number;
  /** The page's path on the server: SHORT_LINK_BASE's path and the code. */
  path: string;
}

interface LinkCounters {
  views: number;
  clicks: number;
}

const apiHeaders = (key: string) => ({ ...VIA_PROXY, authorization: `Bearer ${key}` });

/** Through the API, as a label would make it. */
async function createLink(labeldesk: Server, key: string): Promise<BenchLink> {
  const answer = await apiJson(labeldesk.origin, apiHeaders(key), {
    method: 'POST',
    path: '/api/v1/smart-links',
    body: LINK,
    expectStatus: 201,
  });
  const id = numberAt(answer, ['smart_link', 'id']);
  return { id, path: new URL(stringAt(answer, ['smart_link', 'url'])).pathname };
}

async function linkCounters(labeldesk: Server, key: string, link: BenchLink): Promise<LinkCounters> {
  const answer = await apiJson(labeldesk.origin, apiHeaders(key), {
    method: 'GET',
    path: `/api/v1/smart-links/${link.id}`,
  });
  return {
    views: numberAt(answer, ['smart_link', 'views']),
    clicks: numberAt(answer, ['smart_link', 'clicks']),
  };
}

/**
 * People on the usual browsers, in turn: a browser User-Agent is what makes a view or a click count
 * (a bot, a link preview or curl is not counted), and the mix spreads the counts over a few
 * sources, devices and languages as real traffic does.
 */
const VISITORS: ReadonlyArray<Record<string, string>> = [
  {
    'user-agent':
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'accept-language': 'en-US,en;q=0.9',
    referer: 'https://l.instagram.com/',
  },
  {
    'user-agent':
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
    'accept-language': 'es-ES,es;q=0.9,en;q=0.8',
    referer: 'https://www.tiktok.com/',
  },
  {
    'user-agent':
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    'accept-language': 'de-DE,de;q=0.9,en;q=0.8',
  },
  {
    'user-agent':
      'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'accept-language': 'fr-FR,fr;q=0.9',
    referer: 'https://t.co/',
  },
];

function visitorSequence(): () => Record<string, string> {
  let n = 0;
  return () => {
    n = (n + 1) % VISITORS.length;
    return VISITORS[n] ?? {};
  };
}

function scenariosFor(hello: Server, labeldesk: Server, key: string, link: BenchLink): Scenario[] {
  const nextAddress = addressSequence();
  const pageHeaders = { ...VIA_PROXY, accept: 'text/html' };
  return [
    { name: BASELINE, server: hello, path: '/', headers: {} },
    { name: 'hello + log line', server: hello, path: '/logged', headers: {} },
    { name: ME, server: labeldesk, path: '/api/v1/me', headers: apiHeaders(key) },
    {
      name: 'GET /api/v1/status',
      server: labeldesk,
      path: '/api/v1/status',
      headers: VIA_PROXY,
      perRequestHeaders: () => ({ 'x-forwarded-for': nextAddress() }),
    },
    {
      name: PAGE,
      server: labeldesk,
      path: link.path,
      headers: pageHeaders,
      perRequestHeaders: visitorSequence(),
    },
    {
      name: REDIRECT,
      server: labeldesk,
      path: `${link.path}/go/spotify`,
      headers: pageHeaders,
      perRequestHeaders: visitorSequence(),
      status: 302,
    },
  ];
}

function findScenario(scenarios: readonly Scenario[], name: string): Scenario {
  const found = scenarios.find((scenario) => scenario.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
}

function findMeasured(measured: readonly Measured[], name: string): Measured {
  const found = measured.find((m) => m.scenario === name);
  if (!found) throw new Error(`${name} must have run`);
  return found;
}

interface PageSize {
  bytes: number;
  /** Content-Encoding, or `none`. */
  encoding: string;
}

/**
 * Every page and redirect of the measured rounds counted, none lost. The server also counts the
 * requests still in flight when a round (or the warm-up before the first count) ends, which
 * autocannon drops: at most one per connection each time.
 */
function countingFailures(
  measured: readonly Measured[],
  counted: LinkCounters,
  settings: Settings,
): string[] {
  const inFlight = (settings.rounds + 1) * settings.connections;
  const check = (name: string, answers: number, count: number, what: string): string[] =>
    count >= answers && count <= answers + inFlight
      ? []
      : [
          `${name}: ${answers} answers, ${count} ${what} counted (expected ${answers} to ${answers + inFlight})`,
        ];
  return [
    ...check(PAGE, expectedAnswers(findMeasured(measured, PAGE)), counted.views, 'views'),
    ...check(REDIRECT, expectedAnswers(findMeasured(measured, REDIRECT)), counted.clicks, 'clicks'),
  ];
}

function printReport(
  measured: readonly Measured[],
  page: PageSize,
  counted: LinkCounters,
  labeldesk: Child,
  hello: Child,
): void {
  const baseline = findMeasured(measured, BASELINE);
  const pages = expectedAnswers(findMeasured(measured, PAGE));
  const redirects = expectedAnswers(findMeasured(measured, REDIRECT));
  const lines = [
    '',
    formatTable(measured, baseline),
    '',
    goalLine(findMeasured(measured, ME), baseline),
    `Smart-link page: ${page.bytes} bytes of HTML (Content-Encoding: ${page.encoding})`,
    `Counted during the measured rounds: ${counted.views} views for ${pages} pages and ${counted.clicks} clicks for ${redirects} redirects answered (the server also counts requests autocannon cut off at the end of a round)`,
    `Peak RSS: labeldesk ${formatMegabytes(peakRssKb(labeldesk))}, hello ${formatMegabytes(peakRssKb(hello))}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The page as autocannon gets it (no Accept-Encoding); one more counted view. */
async function pageSize(scenario: Scenario): Promise<PageSize> {
  const response = await fetch(`${scenario.server.origin}${scenario.path}`, {
    headers: { ...headersOnce(scenario), 'accept-encoding': 'identity' },
    signal: AbortSignal.timeout(5_000),
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`${scenario.name} answered ${response.status}`);
  return { bytes: body.byteLength, encoding: response.headers.get('content-encoding') ?? 'none' };
}

async function benchmark(dir: string, settings: Settings, children: Child[]): Promise<boolean> {
  process.stderr.write(`Preparing ${dir}\n`);
  const key = await prepareDataDir(join(dir, 'data'));
  const hello = await startHello(dir);
  children.push(hello.child);
  const labeldesk = await startLabeldesk(dir, settings);
  children.push(labeldesk.child);
  await waitUntilAnswering(hello.child, `${hello.origin}/`, {});
  // A documentation address (RFC 5737), so the probe spends none of the scenarios' per-address budgets.
  await waitUntilAnswering(labeldesk.child, `${labeldesk.origin}/api/v1/status`, {
    'x-forwarded-proto': 'https',
    'x-forwarded-for': '192.0.2.1',
  });
  const link = await createLink(labeldesk, key);

  const scenarios = scenariosFor(hello, labeldesk, key, link);
  for (const scenario of scenarios) await warmUp(scenario, settings);
  const page = await pageSize(findScenario(scenarios, PAGE));
  const before = await linkCounters(labeldesk, key, link);
  const measured = await measureRounds(scenarios, settings);
  const after = await linkCounters(labeldesk, key, link);
  const counted = { views: after.views - before.views, clicks: after.clicks - before.clicks };
  printReport(measured, page, counted, labeldesk.child, hello.child);

  const failures = [...failuresOf(measured), ...countingFailures(measured, counted, settings)];
  if (failures.length === 0) return true;
  process.stderr.write(
    `\nFAILED: every answer must have its status (200; 302 for the redirect) and be counted.\n${failures.join('\n')}\n`,
  );
  process.stderr.write(
    `labeldesk's first 4xx and 5xx log lines:\n${failedLogLines(labeldesk.child.logFile, 5)}\n`,
  );
  return false;
}

/** Ctrl-C or a kill must not leave servers listening or the temporary dir behind. */
function cleanUpOnSignal(dir: string, children: readonly Child[]): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) killChildNow(child);
      rmSync(dir, { recursive: true, force: true });
      process.exit(1);
    });
  }
}

function reportFailure(error: unknown): number {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

async function main(): Promise<number> {
  const settings = readSettings();
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-bench-'));
  const children: Child[] = [];
  cleanUpOnSignal(dir, children);
  try {
    return (await benchmark(dir, settings, children)) ? 0 : 1;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await Promise.all(children.map(stopChild));
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exit(await main().catch(reportFailure));
