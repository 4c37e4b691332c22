// What the load benches share (`npm run bench`, `npm run bench:engines`): scenarios driven by
// autocannon with a number of connections, a warm-up, and rounds in which the scenarios take turns.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import autocannon, { type RequestStep, type Result } from 'autocannon';
import { type Child, cpuTimeMs } from './children.ts';
import type { Measured, Round } from './report.ts';
import { positiveNumber } from './settings.ts';

export interface LoadSettings {
  /** Measured seconds per scenario and round. */
  durationS: number;
  rounds: number;
  warmupS: number;
  connections: number;
}

/** BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP and BENCH_CONNECTIONS, else the bench's own defaults. */
export function readLoadSettings(defaults: LoadSettings): LoadSettings {
  return {
    durationS: positiveNumber('BENCH_DURATION', defaults.durationS),
    rounds: Math.round(positiveNumber('BENCH_ROUNDS', defaults.rounds)),
    warmupS: positiveNumber('BENCH_WARMUP', defaults.warmupS),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', defaults.connections)),
  };
}

export interface Server {
  child: Child;
  origin: string;
  /** The certificate an https origin presents (self-signed), trusted for the bench's own requests. */
  ca?: string;
}

export interface Scenario {
  name: string;
  server: Server;
  path: string;
  headers: Record<string, string>;
  /** Headers that must differ on every request, such as the client address for per-address limits. */
  perRequestHeaders?: () => Record<string, string>;
  /** The status every answer must have; 200 unless said (302 for a redirect). */
  status?: number;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One GET, over http or https (trusting the server's `ca`); a redirect is not followed. */
export function getOnce(server: Server, path: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(path, server.origin);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, { method: 'GET', headers, ca: server.ca, timeout: 5_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)));
    request.on('error', reject);
    request.end();
  });
}

/**
 * A new 10.x.y.z address per call. GET /status allows 30 requests a minute per address; the server
 * trusts X-Forwarded-For, so a fresh address per request keeps every answer a real 200.
 */
export function addressSequence(): () => string {
  let n = 0;
  return () => {
    n = (n + 1) % 0x1000000;
    return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
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

export function visitorSequence(): () => Record<string, string> {
  let n = 0;
  return () => {
    n = (n + 1) % VISITORS.length;
    return VISITORS[n] ?? {};
  };
}

/** A released single with a target on six platforms; the page's first button is Spotify. */
export const BENCH_LINK = {
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
} as const;

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

/** autocannon accepts any certificate, so a self-signed one needs no trust here. */
function drive(scenario: Scenario, settings: LoadSettings, durationS: number): Promise<Result> {
  return autocannon({
    url: `${scenario.server.origin}${scenario.path}`,
    title: scenario.name,
    connections: settings.connections,
    duration: durationS,
    headers: scenario.headers,
    requests: requestSteps(scenario),
  });
}

/** Exactly `amount` requests of the scenario, `connections` at a time, each one answered before it returns. */
export function sendExactly(scenario: Scenario, connections: number, amount: number): Promise<Result> {
  return autocannon({
    url: `${scenario.server.origin}${scenario.path}`,
    title: scenario.name,
    connections,
    amount,
    headers: scenario.headers,
    requests: requestSteps(scenario),
  });
}

export function headersOnce(scenario: Scenario): Record<string, string> {
  return { ...scenario.headers, ...scenario.perRequestHeaders?.() };
}

export const statusOf = (scenario: Scenario): number => scenario.status ?? 200;

/** One request before the load, so a misconfigured scenario fails with its answer rather than a count. */
async function expectStatus(scenario: Scenario): Promise<void> {
  const answer = await getOnce(scenario.server, scenario.path, headersOnce(scenario));
  if (answer.status !== statusOf(scenario)) {
    throw new Error(
      `${scenario.name} answered ${answer.status} before the load: ${answer.body.toString('utf8').slice(0, 300)}`,
    );
  }
}

export async function warmUp(scenario: Scenario, settings: LoadSettings): Promise<void> {
  await expectStatus(scenario);
  // The warm-up lets V8 optimise the hot path; its numbers are dropped.
  await drive(scenario, settings, settings.warmupS);
}

async function measureRound(scenario: Scenario, settings: LoadSettings): Promise<Round> {
  const cpuBefore = cpuTimeMs(scenario.server.child);
  const result = await drive(scenario, settings, settings.durationS);
  const cpuAfter = cpuTimeMs(scenario.server.child);
  return { result, cpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null };
}

/** The scenarios take turns, round after round, so a slow spell of the machine is shared among them. */
export async function measureRounds(
  scenarios: readonly Scenario[],
  settings: LoadSettings,
): Promise<Measured[]> {
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

export function findMeasured(measured: readonly Measured[], name: string): Measured {
  const found = measured.find((m) => m.scenario === name);
  if (!found) throw new Error(`${name} must have run`);
  return found;
}
