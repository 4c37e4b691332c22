// `npm run bench:webhooks`: signed webhook deliveries per second, and the time from an event's
// commit to the first attempt of each of its deliveries (issue 4). One label on the Pro plan has 5
// webhooks subscribed to `release.dsp_status`, all pointing at one HTTPS receiver on the loopback
// address that runs in a child process (bench/webhook-receiver.ts), so that answering never takes
// time from the server's event loop. The server side runs here, as `labeldesk serve` runs it: the
// durable job worker of src/background.ts on a fresh database (SQLite in a temporary data dir, or a
// private schema of BENCH_DATABASE_URL), fed by events published each in a transaction of its own.
//
// Phase "throughput": BENCH_EVENTS events (10,000) are published as fast as BENCH_PUBLISHERS (16)
// producers can, like requests in flight side by side, then the run waits for every delivery's first
// attempt: deliveries / (last arrival - first commit).
// Phase "latency": BENCH_RATE events a second (100, so 500 deliveries a second) for
// BENCH_LATENCY_SECONDS (10): p50/p99 of (arrival of a delivery's first attempt at the receiver -
// commit of its event), both `Date.now()` on the same machine.
//
// Other settings: BENCH_WEBHOOKS (5), BENCH_WORKER_CONCURRENCY (the worker's default),
// BENCH_STALL_SECONDS (30: no new first attempt for this long means deliveries were lost).
// BENCH_PROFILE_DIR=dir writes a V8 CPU profile of each phase of this process (publishers and
// worker) and one of the receiver, for Chrome DevTools or speedscope.
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
import { type BenchDatabase, openBenchDatabase } from './catalog-database.ts';
import { type Child, cpuTimeMs, killChildNow, logTail, startNodeChild, stopChild } from './children.ts';
import { openContext } from './in-process.ts';
import { REPO_ROOT } from './labeldesk.ts';
import { formatGrid, percentile } from './report.ts';
import { positiveInteger, positiveNumber } from './settings.ts';
import { type Arrival, asFromReceiver, type FromReceiver, type ToReceiver } from './webhook-messages.ts';

/** The goals the issue set: deliveries a second on SQLite, and the median commit-to-first-attempt time. */
const DELIVERIES_GOAL = 1000;
const P50_GOAL_MS = 100;
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
  postgresUrl: string | null;
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
    postgresUrl: process.env.BENCH_DATABASE_URL || null,
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

async function startReceiver(dir: string, settings: Settings, ledger: Ledger): Promise<Receiver> {
  const profiling = settings.profileDir
    ? // Every thread writes a profile (tsx's loader runs in one of its own): the largest is the receiver's.
      ['--cpu-prof', `--cpu-prof-dir=${join(settings.profileDir, 'receiver')}`]
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
  return `CPU per delivery (${phase.name}): bench process (publisher + worker) ${perDelivery(phase.benchCpuMs)}, receiver ${perDelivery(phase.receiverCpuMs)}`;
}

interface Outcome {
  report: string;
  broken: string[];
}

async function report(
  server: Server,
  ledger: Ledger,
  settings: Settings,
  throughput: Phase,
  latency: Phase,
): Promise<Outcome> {
  const dialect = server.ctx.dialect;
  const burstNumbers = numbersOf(throughput, ledger);
  const pacedNumbers = numbersOf(latency, ledger);
  const burstAttempts = await attemptsOf(server, throughput);
  const pacedAttempts = await attemptsOf(server, latency);
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
  const table = formatGrid(header, [
    phaseRow(`throughput: ${burstNumbers.events} events at once (queues)`, burstNumbers, burstAttempts),
    phaseRow(
      `latency: ${settings.rate} events/s for ${settings.latencySeconds} s`,
      pacedNumbers,
      pacedAttempts,
    ),
  ]);

  const rate = burstNumbers.deliveriesPerS;
  const rateVerdict = rate >= DELIVERIES_GOAL ? 'holds' : 'MISSED';
  const rateScope =
    dialect === 'sqlite' ? '' : ` (the goal is set for SQLite; on ${dialect} for information)`;
  const p50 = percentile(pacedNumbers.latencyMs, 50);
  const p50Verdict = p50 < P50_GOAL_MS ? 'holds' : 'MISSED';
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
  ].filter((line): line is string => typeof line === 'string');

  const lines = [
    `Webhook deliveries on ${dialect}: ${settings.webhooks} webhooks on one HTTPS receiver (its own process) on 127.0.0.1; ` +
      `worker concurrency ${settings.workerConcurrency ?? 'default'}, ${settings.publishers} publisher(s), one event per transaction`,
    'deliveries/s = first attempts / (last arrival - first commit); p50/p99/max = arrival of a first attempt - commit of its event',
    'after last commit: first attempts that arrived once publishing had ended, and their rate (the worker on its own)',
    '(the throughput phase publishes everything at once, so its latencies are time spent queued behind the burst)',
    'send: the round trip of each attempt as the worker logged it (duration_ms)',
    '',
    table,
    '',
    `Goal deliveries/s >= ${DELIVERIES_GOAL} (throughput phase)${rateScope}: ${rateVerdict} (${rate.toFixed(0)}/s)`,
    `Goal p50 commit -> first attempt < ${P50_GOAL_MS} ms at ${settings.rate} events/s (${settings.rate * settings.webhooks} deliveries/s): ${p50Verdict} (p50 ${p50} ms, p99 ${percentile(pacedNumbers.latencyMs, 99)} ms)`,
    `Checks: ${ledger.first.size + ledger.repeats} arrivals, ${unsigned} bad signatures, ${ledger.inconsistent} inconsistent, ` +
      `${lost} lost, ${ledger.repeats} repeated, ${failed} failed attempts, ${server.workerErrors.length} worker errors`,
    cpuLine(throughput, burstNumbers.deliveries),
    cpuLine(latency, pacedNumbers.deliveries),
  ];
  return { report: lines.join('\n'), broken };
}

// ---------------------------------------------------------------------------------------------

async function benchmark(dir: string, bench: BenchDatabase, settings: Settings, children: Child[]) {
  const ledger = new Ledger();
  const receiver = await startReceiver(dir, settings, ledger);
  children.push(receiver.child);
  const server = await startServer(dir, bench, receiver, settings);
  try {
    const burstEnd = settings.events;
    process.stderr.write(`throughput: publishing ${settings.events} events\n`);
    const throughput = await runPhase(
      'throughput',
      server,
      receiver,
      ledger,
      settings,
      { from: 0, to: burstEnd },
      burst(server, ledger, settings, 0, burstEnd),
    );
    const pacedEnd = burstEnd + Math.max(1, Math.round(settings.rate * settings.latencySeconds));
    process.stderr.write(`latency: ${pacedEnd - burstEnd} events at ${settings.rate} a second\n`);
    const latency = await runPhase(
      'latency',
      server,
      receiver,
      ledger,
      settings,
      { from: burstEnd, to: pacedEnd },
      paced(server, ledger, settings.rate, burstEnd, pacedEnd),
    );
    // Arrivals still in the receiver's last batch (repeats) are counted too.
    await sleep(100);
    const outcome = await report(server, ledger, settings, throughput, latency);
    process.stdout.write(`\n${outcome.report}\n`);
    if (outcome.broken.length === 0) return true;
    process.stderr.write(`\nFAILED:\n${outcome.broken.join('\n')}\n`);
    return false;
  } finally {
    await server.background.close();
  }
}

function reportFailure(error: unknown): number {
  process.stderr.write(`bench:webhooks: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

async function main(): Promise<number> {
  const settings = readSettings();
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-bench-webhooks-'));
  const bench = await openBenchDatabase(join(dir, 'data'), settings.postgresUrl);
  const children: Child[] = [];
  const cleanUp = async () => {
    await Promise.all(children.map(stopReceiver));
    await bench.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  // Ctrl-C must not leave the receiver running, a temporary dir or a PostgreSQL schema behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) killChildNow(child);
      void bench.drop().finally(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(1);
      });
    });
  }
  try {
    return (await benchmark(dir, bench, settings, children)) ? 0 : 1;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await cleanUp();
  }
}

process.exit(await main().catch(reportFailure));
