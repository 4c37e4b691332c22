// `npm run bench:fairness`: one label's stalled receiver must not slow the others (issue 16, item 3).
// The server side runs here as `labeldesk serve` runs it (the app and the job worker of
// src/background.ts on a fresh database: SQLite in a temporary data dir, or a private schema of
// BENCH_DATABASE_URL); the receivers are the HTTPS receivers of the tests, on the loopback address.
//
// Label A (Enterprise, 25 webhooks) points every webhook at a receiver that answers only after
// 9.9 s, just within WEBHOOK_TIMEOUT; label B (Pro, one webhook) at a receiver that answers at once.
// Phase "baseline": B publishes BENCH_B_EVENTS (100) events, one every 20 ms, nobody stalling.
// Phase "A stalling": A publishes BENCH_A_EVENTS (40) events at once (1,000 deliveries, far more
// than the 64 delivery slots), B submits BENCH_RELEASES (3) releases to the automated moderation,
// then B publishes its events as in the baseline.
// Printed: B's delivery latency (event committed to body received) p50/p99 in both phases, and the
// moderation reviews done while A's deliveries stalled.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { createBackground } from '../src/background.ts';
import type { AppContext } from '../src/context.ts';
import type { EventKind } from '../src/db/values.ts';
import { MemoryRateLimiter } from '../src/http/rate-limiter.ts';

import { publish } from '../src/modules/events/events.service.ts';
import { type Authenticated, authenticateKey, createKey } from '../src/modules/keys/keys.service.ts';
import { createLabel } from '../src/modules/labels/labels.service.ts';
import { createWebhook } from '../src/modules/webhooks/webhooks.service.ts';
import { call } from '../test/helpers/harness.ts';
import { givenDraft } from '../test/helpers/pipeline.ts';
import { type Receiver, startReceiver } from '../test/helpers/receiver.ts';
import { openBenchDatabase } from './catalog-database.ts';
import { openContext } from './in-process.ts';
import { formatGrid, percentile } from './report.ts';
import { positiveInteger } from './settings.ts';

const P50_GOAL_MS = 100;
const EVENT: EventKind = 'release.dsp_status';
const STALL_MS = 9_900;
const A_WEBHOOKS = 25;
/** A's share of the 64 delivery slots, reached before B starts publishing. */
const A_SHARE = 16;
const B_INTERVAL_MS = 20;
const WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Waits at most WAIT_MS; whether it came to pass. */
async function until(ready: () => boolean | Promise<boolean>, pollMs = 10): Promise<boolean> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await ready())) {
    if (Date.now() > deadline) return false;
    await sleep(pollMs);
  }
  return true;
}

function ms(value: number): string {
  return Number.isFinite(value) ? `${value} ms` : `> ${WAIT_MS} ms`;
}

/** Polls a release until its automated review is done; returns the outcome and when it came. */
async function reviewed(ctx: AppContext, releaseId: number, since: number) {
  let review: unknown = 'pending';
  await until(async () => {
    const row = await ctx.db
      .selectFrom('releases')
      .select('review_status')
      .where('id', '=', releaseId)
      .executeTakeFirstOrThrow();
    review = row.review_status;
    return review !== 'pending';
  }, 50);
  return { review, doneMs: Date.now() - since };
}

interface Caller {
  key: string;
  auth: Authenticated;
}

async function givenLabel(ctx: AppContext, plan: string, name: string): Promise<Caller> {
  const label = await createLabel(ctx, { name, plan, contractSigned: true });
  const { key } = await createKey(ctx, { labelId: label.id, scopes: ['all'] });
  const auth = await authenticateKey(ctx, key);
  if (!auth) throw new Error('the key just created does not authenticate');
  return { key, auth };
}

async function publishOne(ctx: AppContext, caller: Caller, data: Record<string, unknown>): Promise<number> {
  const at = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute((trx) => publish(trx, caller.auth.workspace, EVENT, data, at));
  return Date.now();
}

/** B publishes `count` events one after another; returns each delivery's latency, sorted. */
async function latenciesOfB(ctx: AppContext, b: Caller, prompt: Receiver, count: number, phase: string) {
  const committed = new Map<string, number>();
  const before = prompt.received.length;
  for (let n = 0; n < count; n += 1) {
    const seq = `${phase}-${n}`;
    committed.set(seq, await publishOne(ctx, b, { bench_seq: seq }));
    await sleep(B_INTERVAL_MS);
  }
  await until(() => prompt.received.length >= before + count);
  const arrived = prompt.received.slice(before).map((delivery) => {
    const seq = (JSON.parse(delivery.body) as { data: { bench_seq: string } }).data.bench_seq;
    return delivery.receivedAt - (committed.get(seq) ?? Number.NaN);
  });
  // Deliveries that never came within the wait count as slower than any that did.
  const missing = Array.from({ length: count - arrived.length }, () => Number.POSITIVE_INFINITY);
  return [...arrived, ...missing].sort((x, y) => x - y);
}

function row(phase: string, latencies: readonly number[]): string[] {
  return [phase, String(latencies.length), ms(percentile(latencies, 50)), ms(percentile(latencies, 99))];
}

async function main(): Promise<void> {
  const bEvents = positiveInteger('BENCH_B_EVENTS', 100);
  const aEvents = positiveInteger('BENCH_A_EVENTS', 40);
  const releases = positiveInteger('BENCH_RELEASES', 3);
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-bench-fairness-'));
  const database = await openBenchDatabase(join(dir, 'db'), process.env.BENCH_DATABASE_URL || null);
  const ctx = await openContext(dir, database, { WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' });
  const app = await buildApp(ctx, { limiter: new MemoryRateLimiter() });
  await app.ready();
  const stalled = await startReceiver();
  stalled.answerWith(() => ({ status: 200, delayMs: STALL_MS }));
  const prompt = await startReceiver();

  const a = await givenLabel(ctx, 'enterprise', 'Stalling Records');
  const b = await givenLabel(ctx, 'pro', 'Prompt Records');
  for (let n = 0; n < A_WEBHOOKS; n += 1) {
    await createWebhook(ctx, a.auth, { url: `${stalled.origin}/a/${n}`, events: [EVENT] });
  }
  await createWebhook(ctx, b.auth, { url: `${prompt.origin}/b`, events: [EVENT] });
  const drafts = [];
  for (let n = 0; n < releases; n += 1) drafts.push((await givenDraft({ app }, b.key)).releaseId);

  const workerErrors: string[] = [];
  const background = createBackground(ctx, {
    ca: stalled.ca,
    onError: (error) => workerErrors.push(error instanceof Error ? error.message : String(error)),
  });
  await background.worker.start();
  try {
    const baseline = await latenciesOfB(ctx, b, prompt, bEvents, 'baseline');

    for (let n = 0; n < aEvents; n += 1) await publishOne(ctx, a, { flood: n });
    await until(() => stalled.received.length >= A_SHARE);
    const stallStarted = Date.now();
    const submittedAt = Date.now();
    for (const id of drafts) {
      const answer = await call({ app }, 'POST', `/api/v1/releases/${id}/submit`, {
        key: b.key,
        payload: { confirm_rights: true },
      });
      if (answer.statusCode !== 202) throw new Error(`submit: ${answer.statusCode} ${answer.body}`);
    }
    const reviewing = Promise.all(drafts.map((id) => reviewed(ctx, id, submittedAt)));
    const stalling = await latenciesOfB(ctx, b, prompt, bEvents, 'stalling');
    const reviews = await reviewing;
    const aAnsweredDuringRun = stalled.received.length;
    const stallLasted = Date.now() - stallStarted;

    console.log(
      `label A: ${A_WEBHOOKS} webhooks, ${aEvents} events (${aEvents * A_WEBHOOKS} deliveries), receiver answering after ${STALL_MS} ms; ` +
        `label B: 1 webhook, ${bEvents} events one every ${B_INTERVAL_MS} ms; ${ctx.dialect}`,
    );
    console.log(
      formatGrid(
        ['label B deliveries', 'n', 'p50', 'p99'],
        [row('baseline', baseline), row('A stalling', stalling)],
      ),
    );
    console.log(
      `label A meanwhile: ${aAnsweredDuringRun} deliveries on the wire to its receiver in ${stallLasted} ms (its share: ${A_SHARE} at a time)`,
    );
    console.log(
      `moderation reviews while A stalled: ${reviews.filter((r) => r.review !== 'pending').length}/${releases} done ` +
        `(${reviews.map((r) => (r.review === 'pending' ? 'pending' : `${r.review} after ${r.doneMs} ms`)).join(', ')})`,
    );
    if (workerErrors.length > 0) console.log(`worker errors: ${workerErrors.slice(0, 3).join('; ')}`);
    const p50 = percentile(stalling, 50);
    const pass = p50 < P50_GOAL_MS && reviews.every((r) => r.review !== 'pending');
    console.log(
      `goal: label B delivery p50 with label A stalling < ${P50_GOAL_MS} ms: ${pass ? 'PASS' : 'FAIL'} (${ms(p50)}, baseline ${ms(percentile(baseline, 50))})`,
    );
    if (!pass) process.exitCode = 1;
  } finally {
    // The stalled requests end with their receiver, so the worker stops at once.
    await stalled.close();
    await prompt.close();
    await background.close();
    await app.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
