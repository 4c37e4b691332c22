// `npm run bench`: Labeldesk against a bare Fastify "hello" on the same machine, in one run, reported
// as ratios because absolute numbers drift on a shared machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type Child,
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
  addressSequence,
  BENCH_LINK,
  findMeasured,
  getOnce,
  headersOnce,
  type LoadSettings,
  measureRounds,
  readLoadSettings,
  type Scenario,
  type Server,
  visitorSequence,
  warmUp,
} from './load.ts';
import {
  expectedAnswers,
  failuresOf,
  formatMegabytes,
  formatTable,
  goalLine,
  type Measured,
} from './report.ts';

interface Settings extends LoadSettings {
  /** Where the Labeldesk child writes a V8 CPU profile, when set. */
  profileDir: string | null;
}

function readSettings(): Settings {
  return {
    ...readLoadSettings({ durationS: 4, rounds: 5, warmupS: 2, connections: 50 }),
    profileDir: process.env.BENCH_PROFILE_DIR ? resolve(process.env.BENCH_PROFILE_DIR) : null,
  };
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
    body: BENCH_LINK,
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
  const answer = await getOnce(scenario.server, scenario.path, headersOnce(scenario));
  if (answer.status !== 200) throw new Error(`${scenario.name} answered ${answer.status}`);
  const encoding = answer.headers['content-encoding'];
  return { bytes: answer.body.byteLength, encoding: typeof encoding === 'string' ? encoding : 'none' };
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
