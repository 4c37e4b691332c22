// `npm run bench`: Labeldesk against a bare Fastify "hello" on the same machine, in one run, reported
// as ratios because absolute numbers drift on a shared machine (DESIGN.md section 5).
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
import { labeldeskEnv, non2xxLogLines, prepareDataDir, REPO_ROOT } from './labeldesk.ts';
import { failuresOf, formatMegabytes, formatTable, goalLine, type Measured, type Round } from './report.ts';
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

/** One request before the load, so a misconfigured scenario fails with its answer rather than a count. */
async function expectOk(scenario: Scenario): Promise<void> {
  const response = await fetch(`${scenario.server.origin}${scenario.path}`, {
    headers: headersOnce(scenario),
    signal: AbortSignal.timeout(5_000),
  });
  const body = await response.text();
  if (response.status !== 200) {
    throw new Error(`${scenario.name} answered ${response.status} before the load: ${body.slice(0, 300)}`);
  }
}

async function warmUp(scenario: Scenario, settings: Settings): Promise<void> {
  await expectOk(scenario);
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
async function measureAll(scenarios: readonly Scenario[], settings: Settings): Promise<Measured[]> {
  for (const scenario of scenarios) await warmUp(scenario, settings);
  const measured: Measured[] = scenarios.map(({ name }) => ({ scenario: name, rounds: [] }));
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
  // Through tsx, as Labeldesk runs, so both carry the same loader.
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

function scenariosFor(hello: Server, labeldesk: Server, key: string): Scenario[] {
  const viaProxy = { 'x-forwarded-proto': 'https' };
  const nextAddress = addressSequence();
  return [
    { name: BASELINE, server: hello, path: '/', headers: {} },
    { name: 'hello + log line', server: hello, path: '/logged', headers: {} },
    {
      name: ME,
      server: labeldesk,
      path: '/api/v1/me',
      headers: { ...viaProxy, authorization: `Bearer ${key}` },
    },
    {
      name: 'GET /api/v1/status',
      server: labeldesk,
      path: '/api/v1/status',
      headers: viaProxy,
      perRequestHeaders: () => ({ 'x-forwarded-for': nextAddress() }),
    },
  ];
}

function printReport(measured: readonly Measured[], labeldesk: Child, hello: Child): void {
  const baseline = measured.find((m) => m.scenario === BASELINE);
  const me = measured.find((m) => m.scenario === ME);
  if (!baseline || !me) throw new Error('the baseline and GET /me must both have run');
  const lines = [
    '',
    formatTable(measured, baseline),
    '',
    goalLine(me, baseline),
    `Peak RSS: labeldesk ${formatMegabytes(peakRssKb(labeldesk))}, hello ${formatMegabytes(peakRssKb(hello))}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
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

  const measured = await measureAll(scenariosFor(hello, labeldesk, key), settings);
  printReport(measured, labeldesk.child, hello.child);

  const failures = failuresOf(measured);
  if (failures.length === 0) return true;
  process.stderr.write(`\nFAILED: every answer must be a 2xx.\n${failures.join('\n')}\n`);
  process.stderr.write(
    `labeldesk's first non-2xx log lines:\n${non2xxLogLines(labeldesk.child.logFile, 5)}\n`,
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
