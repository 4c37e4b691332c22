import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';
import { givenDraft } from '../helpers/pipeline.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  givenWebhook,
  givenWorker,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
} from '../helpers/webhooks.ts';

/** More deliveries than the worker has delivery slots (64). */
const STALLED_DELIVERIES = 100;
/** Label A's share of the delivery slots. */
const SHARE = 16;
/**
 * Label A's receiver answers just within WEBHOOK_TIMEOUT, so none of its deliveries fails: long
 * enough that none answers during the test on a loaded machine (closing the receiver ends them).
 */
const TIMEOUT = '60s';
const STALL_MS = 59_000;

async function until(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(20);
  }
}

async function attemptsLogged(h: Harness, key: string, webhookId: number): Promise<number> {
  const response = await call(h, 'GET', `/api/v1/webhooks/${webhookId}/deliveries`, { key });
  return (json(response) as { total: number }).total;
}

async function reviewOf(h: Harness, key: string, releaseId: number): Promise<unknown> {
  const response = await call(h, 'GET', `/api/v1/releases/${releaseId}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return (json(response) as { release: { review_status: unknown } }).release.review_status;
}

/** Read from the database while waiting: polling through the API would run into the key's rate. */
async function reviewed(h: Harness, releaseId: number): Promise<boolean> {
  const row = await h.ctx.db
    .selectFrom('releases')
    .select('review_status')
    .where('id', '=', releaseId)
    .executeTakeFirstOrThrow();
  return row.review_status !== 'pending';
}

test("a label whose receiver stalls holds a share of the delivery slots: another label's deliveries and the moderation still run", async (t) => {
  const h = await buildHarness(t, { env: { ...LOOPBACK_RECEIVERS, WEBHOOK_TIMEOUT: TIMEOUT } });
  const stalled = await startReceiver(t);
  stalled.answerWith(() => ({ status: 200, delayMs: STALL_MS }));
  const prompt = await startReceiver(t);
  const a = await givenCaller(h);
  const b = await givenCaller(h);
  const hookA = await givenWebhook(h, a.key, `${stalled.origin}/a`, ['release.live']);
  await givenWebhook(h, b.key, `${prompt.origin}/b`, ['release.live']);
  for (let n = 0; n < STALLED_DELIVERIES; n += 1) {
    await publishEvent(h, liveWorkspace(a.label.id), 'release.live', { n });
  }
  const { releaseId } = await givenDraft(h, b.key);
  const submitted = await call(h, 'POST', `/api/v1/releases/${releaseId}/submit`, {
    key: b.key,
    payload: { confirm_rights: true },
  });
  assert.equal(submitted.statusCode, 202, submitted.body);

  const background = givenWorker(t, h, stalled);
  const { worker } = background;
  await worker.start();
  await stalled.waitFor(SHARE);
  await publishEvent(h, liveWorkspace(b.label.id), 'release.live', { upc: '036000291452' });
  await prompt.waitFor(1);
  assert.deepEqual(JSON.parse(prompt.received[0]?.body ?? '{}').data, { upc: '036000291452' });
  await until('the moderation review', () => reviewed(h, releaseId));
  assert.equal(await reviewOf(h, b.key, releaseId), 'approved');

  assert.equal(stalled.received.length, SHARE, "label A's share of the 64 delivery slots, and no more");
  assert.equal(await attemptsLogged(h, a.key, hookA.id), 0, "none of label A's deliveries has been answered");
  // The stalled requests end with the receiver, so the worker stops at once, before the database closes.
  await stalled.close();
  await background.close();
});
