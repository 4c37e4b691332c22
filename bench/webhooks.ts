// `npm run bench:webhooks`: signed webhook deliveries per second, and the time from an event's
// commit to the first attempt of each of its deliveries, on SQLite and then on PostgreSQL in one run
// on one machine, each judged against the goals of issue 18. One label on the Pro plan has 5 webhooks
// subscribed to `release.dsp_status`, all pointing at one HTTPS receiver on the loopback address that
// runs in a child process (bench/webhook-receiver.ts), so that answering never takes time from the
// server's event loop. The server side runs here, as `labeldesk serve` runs it: the durable job worker
// of src/background.ts on a fresh database (SQLite in a temporary data dir; a PostgreSQL database
// created for the run on the server of BENCH_POSTGRES_URL, default the local one, and dropped at the
// end), fed by events published each in a transaction of its own.
//
// Phase "throughput": BENCH_EVENTS events (10,000) are published as fast as BENCH_PUBLISHERS (16)
// producers can, like requests in flight side by side, then the run waits for every delivery's first
// attempt: deliveries / (last arrival - first commit).
// Phase "latency": BENCH_RATE events a second (100, so 500 deliveries a second) for
// BENCH_LATENCY_SECONDS (10): p50/p99 of (arrival of a delivery's first attempt at the receiver -
// commit of its event), both `Date.now()` on the same machine.
//
// Other settings: BENCH_ENGINES (`sqlite,postgres`: which engines, in that order), BENCH_WEBHOOKS
// (5), BENCH_WORKER_CONCURRENCY (the worker's default), BENCH_STALL_SECONDS (30: no new first attempt
// for this long means deliveries were lost). BENCH_PROFILE_DIR=dir writes a V8 CPU profile of each
// phase of this process (publishers and worker) and one of the receiver, per engine, for Chrome
// DevTools or speedscope.
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { generate } from 'selfsigned';
import { type Background, createBackground } from '../src/background.ts';
import type { AppContext } from '../src/context.ts';
import type { Workspace } from '../src/db/scope.ts';
import { countJobs } from '../src/jobs/jobs.store.ts';
import { DELIVERY_JOB } from '../src/modules/events/events.fanout.ts';
import { publish } from '../src/modules/events/events.service.ts';
import { authenticateKey, createKey } from '../src/modules/keys/keys.service.ts';
import { createLabel } from '../src/modules/labels/labels.service.ts';
import { createWebhook } from '../src/modules/webhooks/webhooks.service.ts';
import { type BenchDatabase, openBenchDatabase, openFreshPostgres } from './catalog-database.ts';
import { type Child, cpuTimeMs, killChildNow, logTail, startNodeChild, stopChild } from './children.ts';
import { openContext } from './in-process.ts';
import { REPO_ROOT } from './labeldesk.ts';
import { formatGrid, percentile } from './report.ts';
import { type BenchEngine, benchEngines, positiveInteger, positiveNumber } from './settings.ts';
import { type Arrival, asFromReceiver, type FromReceiver, type ToReceiver } from './webhook-messages.ts';

type Engine = BenchEngine;
const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** Issue 18's goals: deliveries a second in the throughput phase, per engine. */
const DELIVERIES_GOAL: Record<Engine, number> = { sqlite: 3000, postgres: 1500 };
/** And the median commit-to-first-attempt time at the latency phase's rate, on both. */
const P50_GOAL_MS = 50;
const EVENT = 'release.dsp_status';
const RECEIVER_READY_MS = 30_000;
const DRAIN_TIMEOUT_MS = 15_000;
const POLL_MS = 20;

interface Settings {
  events: number;
  webhooks: number;
  publishers: number;
  /** Events a second in the latency phase. */
  rate: number;
  latencySeconds: number;
  workerConcurrency: number | undefined;
  stallMs: number;
  engines: Engine[];
  /** The server on which a database is created for the run. */
  postgresUrl: string;
  profileDir: string | null;
}

function readSettings(): Settings {
  const webhooks = positiveInteger('BENCH_WEBHOOKS', 5);
  // The Pro plan's limit: more would be refused by createWebhook.
  if (webhooks > 10) throw new Error(`BENCH_WEBHOOKS must be at most 10 (got ${webhooks})`);
  return {
    events: positiveInteger('BENCH_EVENTS', 10_000),
    webhooks,
    publishers: positiveInteger('BENCH_PUBLISHERS', 16),
    rate: positiveNumber('BENCH_RATE', 100),
    latencySeconds: positiveNumber('BENCH_LATENCY_SECONDS', 10),
    workerConcurrency: process.env.BENCH_WORKER_CONCURRENCY
      ? positiveInteger('BENCH_WORKER_CONCURRENCY', 64)
      : undefined,
    stallMs: positiveNumber('BENCH_STALL_SECONDS', 30) * 1000,
    engines: benchEngines(),
    postgresUrl: process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    profileDir: process.env.BENCH_PROFILE_DIR ? resolve(process.env.BENCH_PROFILE_DIR) : null,
  };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

// ---------------------------------------------------------------------------------------------
// What arrived at the receiver

/** Every arrival the receiver reported, keyed by delivery id; a delivery's first attempt is its first arrival. */
class Ledger {
  /** Date.now() once the transaction publishing event `seq` had committed. */
  readonly commits: number[] = [];
  readonly first = new Map<string, Arrival>();
  /** Arrivals of a delivery id seen before: retries or a second run of the same job. */
  repeats = 0;
  unsigned = 0;
  inconsistent = 0;
  /** Date.now() in this process when the last new first attempt was reported. */
  lastProgress = Date.now();

  add(arrivals: readonly Arrival[]): void {
    for (const arrival of arrivals) {
      if (!arrival.signed) this.unsigned++;
      if (!arrival.consistent) this.inconsistent++;
      if (this.first.has(arrival.deliveryId)) {
        this.repeats++;
      } else {
        this.first.set(arrival.deliveryId, arrival);
        this.lastProgress = Date.now();
      }
    }
  }

  /** First attempts of the events numbered [from, to). */
  firstAttempts(from: number, to: number): Arrival[] {
    return [...this.first.values()].filter((arrival) => arrival.seq >= from && arrival.seq < to);
  }

  /** First attempts carrying an event this run never committed. */
  strangers(): number {
    return [...this.first.values()].filter((arrival) => this.commits[arrival.seq] === undefined).length;
  }
}

// ---------------------------------------------------------------------------------------------
// The receiver child

interface Receiver {
  child: Child;
  origin: string;
  /** Its self-signed certificate, which the sender is told to trust. */
  ca: string;
}

async function certificate(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'receiver.bench' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

function tell(child: Child, message: ToReceiver): void {
  child.process.send(message);
}

/** The receiver's next message of this type; fails if it exits or stays silent. */
function nextMessage<T extends FromReceiver['type']>(
  child: Child,
  type: T,
): Promise<Extract<FromReceiver, { type: T }>> {
  return new Promise((done, fail) => {
    const onMessage = (raw: unknown) => {
      const message = asFromReceiver(raw);
      if (message?.type !== type) return;
      cleanUp();
      done(message as Extract<FromReceiver, { type: T }>);
    };
    const onExit = () => {
      cleanUp();
      fail(new Error(`the receiver exited; log tail:\n${logTail(child.logFile)}`));
    };
    const timer = setTimeout(() => {
      cleanUp();
      fail(new Error(`the receiver sent no "${type}" within ${RECEIVER_READY_MS} ms`));
    }, RECEIVER_READY_MS);
    const cleanUp = () => {
      clearTimeout(timer);
      child.process.off('message', onMessage);
      child.process.off('exit', onExit);
    };
    child.process.on('message', onMessage);
    child.process.once('exit', onExit);
  });
}

async function startReceiver(
  dir: string,
  engine: Engine,
  settings: Settings,
  ledger: Ledger,
): Promise<Receiver> {
  const profiling = settings.profileDir
    ? // Every thread writes a profile (tsx's loader runs in one of its own): the largest is the receiver's.
      ['--cpu-prof', `--cpu-prof-dir=${join(settings.profileDir, `receiver-${engine}`)}`]
    : [];
  const child = startNodeChild(
    'webhook receiver',
    [...profiling, '--import', 'tsx', 'bench/webhook-receiver.ts'],
    {
      cwd: REPO_ROOT,
      env: process.env,
      logFile: join(dir, 'receiver.log'),
      ipc: true,
    },
  );
  child.process.on('message', (raw: unknown) => {
    const message = asFromReceiver(raw);
    if (message?.type === 'arrivals') ledger.add(message.arrivals);
  });
  const { cert, key } = await certificate();
  const listening = nextMessage(child, 'listening');
  tell(child, { type: 'listen', cert, key });
  const { port } = await listening;
  return { child, origin: `https://127.0.0.1:${port}`, ca: cert };
}

// ---------------------------------------------------------------------------------------------
// The server side

interface Server {
  ctx: AppContext;
  workspace: Workspace;
  background: Background;
  workerErrors: string[];
}

/** Lets the receiver exit by itself when its channel closes, so a CPU profile it writes is complete. */
async function stopReceiver(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.connected) {
    const exited = once(child.process, 'exit');
    child.process.disconnect();
    await Promise.race([exited, sleep(5_000)]);
  }
  await stopChild(child);
}

async function startServer(
  dir: string,
  bench: BenchDatabase,
  receiver: Receiver,
  settings: Settings,
): Promise<Server> {
  const ctx = await openContext(dir, bench, { WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });
  const label = await createLabel(ctx, { name: 'Webhook Bench', plan: 'pro', contractSigned: true });
  const issued = await createKey(ctx, { labelId: label.id, scopes: ['all'] });
  const auth = await authenticateKey(ctx, issued.key);
  if (!auth) throw new Error('the key just created does not authenticate');

  const secrets: Record<string, string> = {};
  for (let n = 1; n <= settings.webhooks; n++) {
    const path = `/hooks/${n}`;
    const webhook = await createWebhook(ctx, auth, { url: `${receiver.origin}${path}`, events: [EVENT] });
    secrets[path] = webhook.secret;
  }
  const ready = nextMessage(receiver.child, 'ready');
  tell(receiver.child, { type: 'secrets', secrets });
  await ready;

  const workerErrors: string[] = [];
  const background = createBackground(ctx, {
    ca: receiver.ca,
    concurrency: settings.workerConcurrency,
    onError: (error) => workerErrors.push(error instanceof Error ? error.message : String(error)),
  });
  await background.worker.start();
  return { ctx, workspace: auth.workspace, background, workerErrors };
}

/** A platform stage change of release `seq`, shaped as the spec describes the event's data. */
function eventData(seq: number): Record<string, unknown> {
  return {
    release: {
      id: seq,
      title: `Bench Release ${seq}`,
      type: 'single',
      status: 'submitted',
      upc: '0000000000000',
      release_date: '2030-01-01',
      artist: { id: 1, name: 'Bench Artist' },
    },
    dsp: 'spotify',
    stage: 'processing',
    detail: null,
    bench_seq: seq,
  };
}

/** One event in a transaction of its own, as a producer's change publishes it; its commit time is kept. */
async function publishOne(server: Server, ledger: Ledger, seq: number): Promise<void> {
  const { ctx, workspace } = server;
  const at = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute((trx) => publish(trx, workspace, EVENT, eventData(seq), at));
  ledger.commits[seq] = Date.now();
}

// ---------------------------------------------------------------------------------------------
// Phases

interface Phase {
  name: string;
  /** Events numbered [from, to). */
  from: number;
  to: number;
  webhooks: number;
  startedIso: string;
  endedIso: string;
  /** First attempts that never arrived. */
  lost: number;
  /** CPU time over the phase, publishing to last arrival. */
  benchCpuMs: number;
  receiverCpuMs: number | null;
}

/** Waits until every delivery of the events so far has had its first attempt, or none came for `stallMs`. */
async function awaitFirstAttempts(
  ledger: Ledger,
  receiver: Receiver,
  expected: number,
  stallMs: number,
): Promise<number> {
  ledger.lastProgress = Math.max(ledger.lastProgress, Date.now());
  while (ledger.first.size < expected) {
    if (receiver.child.process.exitCode !== null)
      throw new Error(`the receiver exited; log tail:\n${logTail(receiver.child.logFile)}`);
    if (Date.now() - ledger.lastProgress > stallMs) return expected - ledger.first.size;
    await sleep(POLL_MS);
  }
  return 0;
}

/** Until the worker has logged every attempt and removed every delivery job. */
async function awaitEmptyQueue(server: Server): Promise<number> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const left = await countJobs(server.ctx.db, DELIVERY_JOB);
    if (left === 0 || Date.now() > deadline) return left;
    await sleep(POLL_MS);
  }
}

/** A V8 CPU profile of this process over one phase, when BENCH_PROFILE_DIR is set. */
async function profiled<T>(settings: Settings, name: string, run: () => Promise<T>): Promise<T> {
  const dir = settings.profileDir;
  if (!dir) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `bench-${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function runPhase(
  name: string,
  server: Server,
  receiver: Receiver,
  ledger: Ledger,
  settings: Settings,
  range: { from: number; to: number },
  publishAll: () => Promise<void>,
): Promise<Phase> {
  const startedIso = new Date().toISOString();
  const cpuBefore = process.cpuUsage();
  const receiverBefore = cpuTimeMs(receiver.child);
  const lost = await profiled(settings, name, async () => {
    await publishAll();
    return awaitFirstAttempts(ledger, receiver, range.to * settings.webhooks, settings.stallMs);
  });
  const cpu = process.cpuUsage(cpuBefore);
  const receiverAfter = cpuTimeMs(receiver.child);
  const jobsLeft = await awaitEmptyQueue(server);
  if (jobsLeft > 0) process.stderr.write(`${name}: ${jobsLeft} delivery jobs still queued\n`);
  return {
    name,
    ...range,
    webhooks: settings.webhooks,
    startedIso,
    endedIso: new Date().toISOString(),
    lost,
    benchCpuMs: (cpu.user + cpu.system) / 1000,
    receiverCpuMs: receiverBefore !== null && receiverAfter !== null ? receiverAfter - receiverBefore : null,
  };
}

/**
 * As fast as `publishers` producers can, each publishing one event at a time. Each event starts in
 * an event-loop turn of its own, as a request's would: on SQLite a commit resolves without I/O, and a
 * loop of them would otherwise hold the event loop, and the worker, until the last one.
 */
function burst(server: Server, ledger: Ledger, settings: Settings, from: number, to: number) {
  return async () => {
    let next = from;
    const producer = async () => {
      while (next < to) {
        const seq = next++;
        await setImmediate();
        await publishOne(server, ledger, seq);
      }
    };
    await Promise.all(Array.from({ length: settings.publishers }, producer));
  };
}

/**
 * One event every 1/rate seconds on a fixed schedule, each started on time whether or not the one
 * before has committed (as independent requests would), so a slow commit does not lower the rate.
 */
function paced(server: Server, ledger: Ledger, rate: number, from: number, to: number) {
  return async () => {
    const started = performance.now();
    const publishing: Promise<void>[] = [];
    for (let seq = from; seq < to; seq++) {
      const wait = started + ((seq - from) * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      publishing.push(publishOne(server, ledger, seq));
    }
    await Promise.all(publishing);
  };
}

// ---------------------------------------------------------------------------------------------
// The report

interface Attempts {
  roundTripMs: number[];
  failed: number;
}

/** The attempts the worker logged during a phase: the sender's round trip, and how many failed. */
async function attemptsOf(server: Server, phase: Phase): Promise<Attempts> {
  const rows = await server.ctx.db
    .selectFrom('webhook_attempts')
    .select(['duration_ms', 'ok'])
    .where('created_at', '>=', phase.startedIso)
    .where('created_at', '<=', phase.endedIso)
    .execute();
  return {
    roundTripMs: rows.map((row) => row.duration_ms ?? 0).sort((a, b) => a - b),
    failed: rows.filter((row) => row.ok === 0).length,
  };
}

interface PhaseNumbers {
  events: number;
  deliveries: number;
  publishedPerS: number;
  deliveriesPerS: number;
  latencyMs: number[];
  /** First attempts that arrived after the last commit, and at what rate: the worker alone. */
  afterLastCommit: number;
  afterLastCommitPerS: number;
  /** Events whose first attempts did not reach each webhook exactly once. */
  misaddressed: number;
}

function numbersOf(phase: Phase, ledger: Ledger): PhaseNumbers {
  const arrivals = ledger.firstAttempts(phase.from, phase.to);
  const commits = ledger.commits.slice(phase.from, phase.to);
  const firstCommit = commits.reduce((first, at) => Math.min(first, at), Number.POSITIVE_INFINITY);
  const lastCommit = commits.reduce((last, at) => Math.max(last, at), 0);
  const lastArrival = arrivals.reduce((last, arrival) => Math.max(last, arrival.at), firstCommit);
  const latencyMs = arrivals
    .map((arrival) => arrival.at - (ledger.commits[arrival.seq] ?? arrival.at))
    .sort((a, b) => a - b);
  const paths = new Map<number, string[]>();
  for (const arrival of arrivals) paths.set(arrival.seq, [...(paths.get(arrival.seq) ?? []), arrival.path]);
  let misaddressed = 0;
  for (let seq = phase.from; seq < phase.to; seq++) {
    const seen = paths.get(seq) ?? [];
    if (seen.length !== phase.webhooks || new Set(seen).size !== phase.webhooks) misaddressed++;
  }
  const events = phase.to - phase.from;
  const afterLastCommit = arrivals.filter((arrival) => arrival.at > lastCommit).length;
  return {
    events,
    deliveries: arrivals.length,
    publishedPerS: lastCommit > firstCommit ? ((events - 1) * 1000) / (lastCommit - firstCommit) : 0,
    deliveriesPerS: lastArrival > firstCommit ? (arrivals.length * 1000) / (lastArrival - firstCommit) : 0,
    latencyMs,
    afterLastCommit,
    afterLastCommitPerS: lastArrival > lastCommit ? (afterLastCommit * 1000) / (lastArrival - lastCommit) : 0,
    misaddressed,
  };
}

function phaseRow(label: string, numbers: PhaseNumbers, attempts: Attempts): string[] {
  const { latencyMs, roundTripMs } = { ...numbers, ...attempts };
  return [
    label,
    String(numbers.events),
    String(numbers.deliveries),
    numbers.publishedPerS.toFixed(0),
    numbers.deliveriesPerS.toFixed(0),
    `${numbers.afterLastCommit} at ${numbers.afterLastCommitPerS.toFixed(0)}/s`,
    percentile(latencyMs, 50).toFixed(0),
    percentile(latencyMs, 99).toFixed(0),
    (latencyMs.at(-1) ?? 0).toFixed(0),
    `${percentile(roundTripMs, 50)}/${percentile(roundTripMs, 99)}`,
  ];
}

function cpuLine(phase: Phase, deliveries: number): string {
  const perDelivery = (ms: number | null) =>
    ms === null ? 'n/a' : `${((ms * 1000) / deliveries).toFixed(0)} µs`;
  return `CPU per delivery (${phase.name.replace(/^\w+-/, '')}): bench process (publisher + worker) ${perDelivery(phase.benchCpuMs)}, receiver ${perDelivery(phase.receiverCpuMs)}`;
}

/** One engine's run: its rows of the table, its goals' figures, its checks, and what went wrong. */
interface EngineResult {
  engine: Engine;
  rows: string[][];
  deliveriesPerS: number;
  p50Ms: number;
  p99Ms: number;
  notes: string[];
  broken: string[];
}

async function engineResult(
  engine: Engine,
  server: Server,
  ledger: Ledger,
  settings: Settings,
  throughput: Phase,
  latency: Phase,
): Promise<EngineResult> {
  const name = ENGINE_NAMES[engine];
  const burstNumbers = numbersOf(throughput, ledger);
  const pacedNumbers = numbersOf(latency, ledger);
  const burstAttempts = await attemptsOf(server, throughput);
  const pacedAttempts = await attemptsOf(server, latency);
  const rows = [
    phaseRow(`${name} throughput: ${burstNumbers.events} events at once`, burstNumbers, burstAttempts),
    phaseRow(
      `${name} latency: ${settings.rate} events/s for ${settings.latencySeconds} s`,
      pacedNumbers,
      pacedAttempts,
    ),
  ];
  const unsigned = ledger.unsigned;
  const lost = throughput.lost + latency.lost;
  const misaddressed = burstNumbers.misaddressed + pacedNumbers.misaddressed;
  const failed = burstAttempts.failed + pacedAttempts.failed;
  const strangers = ledger.strangers();
  const broken = [
    unsigned > 0 && `${unsigned} deliveries with a bad signature`,
    ledger.inconsistent > 0 &&
      `${ledger.inconsistent} deliveries whose body disagrees with its headers or event`,
    strangers > 0 && `${strangers} deliveries of events this run never committed`,
    lost > 0 && `${lost} deliveries never arrived (nothing new for ${settings.stallMs / 1000} s)`,
    misaddressed > 0 && `${misaddressed} events did not reach each webhook exactly once`,
    failed > 0 && `${failed} attempts failed`,
    server.workerErrors.length > 0 &&
      `${server.workerErrors.length} worker errors, first: ${server.workerErrors.slice(0, 3).join(' | ')}`,
  ]
    .filter((line): line is string => typeof line === 'string')
    .map((line) => `${name}: ${line}`);
  const notes = [
    `${name} checks: ${ledger.first.size + ledger.repeats} arrivals, ${unsigned} bad signatures, ${ledger.inconsistent} inconsistent, ` +
      `${lost} lost, ${ledger.repeats} repeated, ${failed} failed attempts, ${server.workerErrors.length} worker errors`,
    `${name} ${cpuLine(throughput, burstNumbers.deliveries)}`,
    `${name} ${cpuLine(latency, pacedNumbers.deliveries)}`,
  ];
  return {
    engine,
    rows,
    deliveriesPerS: burstNumbers.deliveriesPerS,
    // No first attempt at all is no latency to judge, not a latency of 0.
    p50Ms:
      pacedNumbers.latencyMs.length === 0 ? Number.POSITIVE_INFINITY : percentile(pacedNumbers.latencyMs, 50),
    p99Ms:
      pacedNumbers.latencyMs.length === 0 ? Number.POSITIVE_INFINITY : percentile(pacedNumbers.latencyMs, 99),
    notes,
    broken,
  };
}

function verdict(holds: boolean): string {
  return holds ? 'PASS' : 'FAIL';
}

/** The goal lines of issue 18, for the engines measured, in the order the issue gives them. */
function goalLines(results: readonly EngineResult[], settings: Settings): string[] {
  const byEngine = (engine: Engine) => results.find((result) => result.engine === engine);
  const lines: string[] = [];
  for (const engine of ['postgres', 'sqlite'] as const) {
    const result = byEngine(engine);
    if (!result) continue;
    const goal = DELIVERIES_GOAL[engine];
    lines.push(
      `goal: ${ENGINE_NAMES[engine]} webhook deliveries >= ${goal}/s: ${verdict(result.deliveriesPerS >= goal)} (${result.deliveriesPerS.toFixed(0)}/s)`,
    );
  }
  for (const engine of ['sqlite', 'postgres'] as const) {
    const result = byEngine(engine);
    if (!result) continue;
    lines.push(
      `goal: p50 commit-to-first-attempt at ${settings.rate} events/s < ${P50_GOAL_MS} ms on ${ENGINE_NAMES[engine]}: ` +
        `${verdict(result.p50Ms < P50_GOAL_MS)} (p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms)`,
    );
  }
  return lines;
}

function report(results: readonly EngineResult[], settings: Settings): string {
  const header = [
    'phase',
    'events',
    'deliveries',
    'published ev/s',
    'deliveries/s',
    'after last commit',
    'p50 ms',
    'p99 ms',
    'max ms',
    'send p50/p99 ms',
  ];
  return [
    `Webhook deliveries: ${settings.webhooks} webhooks on one HTTPS receiver (its own process) on 127.0.0.1; ` +
      `worker concurrency ${settings.workerConcurrency ?? 'default'}, ${settings.publishers} publisher(s), one event per transaction; ` +
      `the engines one after the other on this machine`,
    'deliveries/s = first attempts / (last arrival - first commit); p50/p99/max = arrival of a first attempt - commit of its event',
    'after last commit: first attempts that arrived once publishing had ended, and their rate (the worker on its own)',
    '(the throughput phase publishes everything at once, so its latencies are time spent queued behind the burst)',
    'send: the round trip of each attempt as the worker logged it (duration_ms)',
    '',
    formatGrid(
      header,
      results.flatMap((result) => result.rows),
    ),
    '',
    ...results.flatMap((result) => result.notes),
    '',
    ...goalLines(results, settings),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

async function benchmark(
  engine: Engine,
  dir: string,
  bench: BenchDatabase,
  settings: Settings,
  children: Child[],
): Promise<EngineResult> {
  const ledger = new Ledger();
  const receiver = await startReceiver(dir, engine, settings, ledger);
  children.push(receiver.child);
  const server = await startServer(dir, bench, receiver, settings);
  const name = ENGINE_NAMES[engine];
  try {
    const burstEnd = settings.events;
    process.stderr.write(`${name} throughput: publishing ${settings.events} events\n`);
    const throughput = await runPhase(
      `${engine}-throughput`,
      server,
      receiver,
      ledger,
      settings,
      { from: 0, to: burstEnd },
      burst(server, ledger, settings, 0, burstEnd),
    );
    const pacedEnd = burstEnd + Math.max(1, Math.round(settings.rate * settings.latencySeconds));
    process.stderr.write(`${name} latency: ${pacedEnd - burstEnd} events at ${settings.rate} a second\n`);
    const latency = await runPhase(
      `${engine}-latency`,
      server,
      receiver,
      ledger,
      settings,
      { from: burstEnd, to: pacedEnd },
      paced(server, ledger, settings.rate, burstEnd, pacedEnd),
    );
    // Arrivals still in the receiver's last batch (repeats) are counted too.
    await sleep(100);
    return await engineResult(engine, server, ledger, settings, throughput, latency);
  } finally {
    await server.background.close();
  }
}

function reportFailure(error: unknown): number {
  process.stderr.write(`bench:webhooks: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

/** A temporary dir and a fresh database of the engine, removed when the run ends or is interrupted. */
interface EngineRun {
  dir: string;
  bench: BenchDatabase;
}

async function openEngine(engine: Engine, settings: Settings): Promise<EngineRun> {
  const dir = mkdtempSync(join(tmpdir(), `labeldesk-bench-webhooks-${engine}-`));
  const dataDir = join(dir, 'data');
  try {
    const bench =
      engine === 'postgres'
        ? await openFreshPostgres(settings.postgresUrl, dataDir, 'labeldesk_bench_webhooks')
        : await openBenchDatabase(dataDir, null);
    return { dir, bench };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function main(): Promise<number> {
  const settings = readSettings();
  const children: Child[] = [];
  const opened: EngineRun[] = [];
  const dropAll = async () => {
    for (const { dir, bench } of opened.splice(0)) {
      await bench.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // Ctrl-C must not leave a receiver running, a temporary dir or a PostgreSQL database behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) killChildNow(child);
      void dropAll().finally(() => process.exit(1));
    });
  }
  const results: EngineResult[] = [];
  try {
    for (const engine of settings.engines) {
      const workspace = await openEngine(engine, settings);
      opened.push(workspace);
      results.push(await benchmark(engine, workspace.dir, workspace.bench, settings, children));
      await Promise.all(children.splice(0).map(stopReceiver));
      await dropAll();
    }
    process.stdout.write(`\n${report(results, settings)}\n`);
    const broken = results.flatMap((result) => result.broken);
    if (broken.length === 0) return 0;
    process.stderr.write(`\nFAILED:\n${broken.join('\n')}\n`);
    return 1;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await Promise.all(children.splice(0).map(stopReceiver));
    await dropAll();
  }
}

process.exit(await main().catch(reportFailure));
