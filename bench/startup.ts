// How long an operator waits for Labeldesk to start, on SQLite: `labeldesk label list` from start to exit
// (on a migrated database with one label), and `npm start` with a fresh LABELDESK_DATA_DIR (migrations,
// the self-signed certificate, the server) to the first 200 from GET /api/v1/status. Each is run from the
// compiled build (dist/, what bin/labeldesk.js runs) and from the sources through tsx
// (LABELDESK_FROM_SOURCES=1), in turns within each round so a slow spell of the shared machine hits both;
// the goals are judged on the compiled build's median, shown beside the median of the rounds' ratios.
//
// `npm run bench:startup` builds dist/ first. BENCH_STARTUP_ROUNDS sets the measured rounds (5), after
// one round that warms the file cache and tsx's cache and is not counted.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, freePort, LOOPBACK, logTail, runNodeScript, stopChild } from './children.ts';
import { labeldeskEnv, prepareDataDir, REPO_ROOT } from './labeldesk.ts';
import { formatGrid, median } from './report.ts';
import { positiveInteger } from './settings.ts';

const LIST_GOAL_S = 0.6;
const START_GOAL_S = 2;
const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 10;

const CODES = ['compiled', 'sources'] as const;
type Code = (typeof CODES)[number];
const CODE_ENV: Record<Code, Record<string, string>> = {
  compiled: { LABELDESK_FROM_SOURCES: '' },
  sources: { LABELDESK_FROM_SOURCES: '1' },
};

type Timings = Record<Code, number[]>;

const rounds = positiveInteger('BENCH_STARTUP_ROUNDS', 5);

async function timeLabelList(dataDir: string, code: Code): Promise<number> {
  const started = performance.now();
  const stdout = await runNodeScript(['bin/labeldesk.js', 'label', 'list'], {
    cwd: REPO_ROOT,
    env: labeldeskEnv(dataDir, CODE_ENV[code]),
  });
  const seconds = (performance.now() - started) / 1000;
  if (!stdout.includes('Bench')) throw new Error(`label list (${code}) printed no label: ${stdout.trim()}`);
  return seconds;
}

/**
 * GET /api/v1/status over the server's HTTPS; null while nothing answers. The certificate is the one
 * serve has just made for itself, so it is not checked: only the timing matters here.
 */
function statusCode(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const request = get(
      {
        host: LOOPBACK,
        port,
        path: '/api/v1/status',
        servername: 'localhost',
        rejectUnauthorized: false,
        agent: false,
        timeout: 1_000,
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? null);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function firstStatusAnswer(child: Child, port: number): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before answering; log tail:\n${logTail(child.logFile)}`);
    }
    if ((await statusCode(port)) === 200) return;
    await sleep(POLL_MS);
  }
  throw new Error(`${child.name} gave no 200 on GET /api/v1/status within ${READY_TIMEOUT_MS} ms`);
}

/** `npm start`, as an operator types it, on a fresh data dir; SIGTERM reaches serve, which npm start execs. */
function startNpm(dir: string, code: Code, port: number): Child {
  const logFile = join(dir, `npm-start-${code}.log`);
  const fd = openSync(logFile, 'a');
  try {
    const dataDir = mkdtempSync(join(dir, `data-${code}-`));
    const child = spawn('npm', ['start'], {
      cwd: REPO_ROOT,
      env: labeldeskEnv(dataDir, { ...CODE_ENV[code], PORT: String(port), HOST: LOOPBACK }),
      stdio: ['ignore', fd, fd],
    });
    return { name: `npm start (${code})`, process: child, logFile };
  } finally {
    closeSync(fd);
  }
}

async function timeNpmStart(dir: string, code: Code): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = startNpm(dir, code, port);
  try {
    await firstStatusAnswer(child, port);
    return (performance.now() - started) / 1000;
  } finally {
    await stopChild(child);
  }
}

async function measure(dir: string, listDataDir: string): Promise<{ list: Timings; start: Timings }> {
  const list: Timings = { compiled: [], sources: [] };
  const start: Timings = { compiled: [], sources: [] };
  for (let round = 0; round <= rounds; round++) {
    process.stderr.write(round === 0 ? 'warm-up round\n' : `round ${round} of ${rounds}\n`);
    for (const code of CODES) {
      const listed = await timeLabelList(listDataDir, code);
      const started = await timeNpmStart(dir, code);
      if (round === 0) continue;
      list[code].push(listed);
      start[code].push(started);
    }
  }
  return { list, start };
}

const seconds = (value: number) => `${value.toFixed(2)} s`;

/** Each round's compiled time against the sources' in the same round. */
function medianRatio(timings: Timings): number {
  return median(timings.compiled.map((compiled, i) => compiled / (timings.sources[i] ?? Number.NaN)));
}

function row(name: string, timings: Timings): string[] {
  return [
    name,
    seconds(median(timings.compiled)),
    seconds(median(timings.sources)),
    `${medianRatio(timings).toFixed(2)}x`,
  ];
}

/** One goal line; false when the compiled build's median misses the goal. */
function goal(what: string, goalS: number, timings: Timings): boolean {
  const compiled = median(timings.compiled);
  const met = compiled < goalS;
  const roundsList = timings.compiled.map((value) => value.toFixed(2)).join(', ');
  console.log(
    `goal: ${what} < ${goalS} s: ${met ? 'PASS' : 'FAIL'} (median ${seconds(compiled)} of rounds ${roundsList}; ` +
      `${medianRatio(timings).toFixed(2)}x the sources' ${seconds(median(timings.sources))})`,
  );
  return met;
}

async function main(): Promise<void> {
  if (!existsSync(join(REPO_ROOT, 'dist/main.js'))) {
    throw new Error('no compiled build in dist/: run `npm run build` (npm run bench:startup does)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-bench-startup-'));
  try {
    const listDataDir = join(dir, 'data-list');
    await prepareDataDir(listDataDir);
    const { list, start } = await measure(dir, listDataDir);
    console.log(
      `startup on SQLite, median of ${rounds} rounds: the compiled build (dist/) and the sources through tsx`,
    );
    console.log(
      formatGrid(
        ['command', 'compiled', 'sources', 'compiled/sources'],
        [row('labeldesk label list', list), row('npm start to GET /api/v1/status 200', start)],
      ),
    );
    const listMet = goal('labeldesk label list', LIST_GOAL_S, list);
    const startMet = goal('npm start to a first GET /status answer', START_GOAL_S, start);
    if (!listMet || !startMet) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
