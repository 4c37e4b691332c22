import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimDueJobs } from '../../src/jobs/jobs.store.ts';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';
import { type ReceivedDelivery, startReceiver } from '../helpers/receiver.ts';
import {
  bodyOf,
  deliveryLog,
  givenWebhook,
  givenWorker,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
  UNMETERED,
} from '../helpers/webhooks.ts';

test('a failed delivery is retried after 30 s and 5 min under one delivery id, then given up', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  receiver.answerWith(() => ({ status: 500 }));
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  const { delivery_id, event_id } = json(
    await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key }),
  ) as { delivery_id: string; event_id: number };

  await worker.drain();
  assert.equal(receiver.received.length, 1);
  h.clock.advance(29_000);
  await worker.drain();
  assert.equal(receiver.received.length, 1, 'not before 30 s');
  h.clock.advance(1_000);
  await worker.drain();
  assert.equal(receiver.received.length, 2);
  h.clock.advance(299_000);
  await worker.drain();
  assert.equal(receiver.received.length, 2, 'not before 5 min');
  h.clock.advance(1_000);
  await worker.drain();
  assert.equal(receiver.received.length, 3);
  h.clock.advance(3_600_000);
  await worker.drain();
  assert.equal(receiver.received.length, 3, 'three attempts in all');

  assert.deepEqual(
    receiver.received.map((d) => [d.headers['x-service-delivery-id'], bodyOf(d).id]),
    [
      [delivery_id, delivery_id],
      [delivery_id, delivery_id],
      [delivery_id, delivery_id],
    ],
  );
  const { body, response } = await deliveryLog(h, key, webhook.id);
  assert.equal(response.headers['x-total-count'], '3');
  assert.deepEqual(
    body.deliveries.map((d) => ({ ...d, duration_ms: 0 })),
    [
      ['2026-03-02T10:05:30.000Z', 3],
      ['2026-03-02T10:00:30.000Z', 2],
      ['2026-03-02T10:00:00.000Z', 1],
    ].map(([created_at, attempt]) => ({
      delivery_id,
      event: 'webhook.test',
      event_id,
      attempt,
      status: 500,
      ok: false,
      duration_ms: 0,
      error: 'the receiver answered 500',
      created_at,
    })),
  );
  const listed = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as {
    webhooks: Array<{ consecutive_failures: number; active: boolean }>;
  };
  assert.deepEqual(
    listed.webhooks.map((w) => [w.consecutive_failures, w.active]),
    [[3, true]],
  );
});

test('redirects are not followed: a 3xx is a failed attempt', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  receiver.answerWith((d) =>
    d.path === '/hook'
      ? { status: 302, headers: { location: `${receiver.origin}/elsewhere` } }
      : { status: 200 },
  );
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await worker.drain();
  assert.deepEqual(
    receiver.received.map((d) => d.path),
    ['/hook'],
  );
  const [attempt] = (await deliveryLog(h, key, webhook.id)).body.deliveries;
  assert.equal(attempt?.status, 302);
  assert.equal(attempt?.ok, false);
  assert.equal(attempt?.error, `redirect to ${receiver.origin}/elsewhere not followed`);
});

test('an answer slower than WEBHOOK_TIMEOUT is a failed attempt with no status', async (t) => {
  const h = await buildHarness(t, { env: { ...LOOPBACK_RECEIVERS, WEBHOOK_TIMEOUT: '200ms' } });
  const receiver = await startReceiver(t);
  receiver.answerWith(() => ({ status: 200, delayMs: 1_000 }));
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await worker.drain();
  const [attempt] = (await deliveryLog(h, key, webhook.id)).body.deliveries;
  assert.equal(attempt?.status, null);
  assert.equal(attempt?.ok, false);
  assert.equal(attempt?.error, 'no answer within 200 ms');
  assert.ok(Number(attempt?.duration_ms) >= 190 && Number(attempt?.duration_ms) < 1_000);
});

test('after 20 failed attempts in a row the webhook is switched off until PATCH active: true', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS, limiter: UNMETERED });
  const receiver = await startReceiver(t);
  receiver.answerWith(() => ({ status: 503 }));
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`, ['webhook.test', 'release.live']);
  const { worker } = givenWorker(t, h, receiver);
  for (let i = 0; i < 19; i += 1) await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await worker.drain();
  const state = async () =>
    (json(await call(h, 'GET', '/api/v1/webhooks', { key })) as { webhooks: Array<Record<string, unknown>> })
      .webhooks[0];
  assert.deepEqual([(await state())?.active, (await state())?.consecutive_failures], [true, 19]);

  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await worker.drain();
  assert.deepEqual([(await state())?.active, (await state())?.consecutive_failures], [false, 20]);

  // Switched off: the retries falling due and new events reach nothing.
  receiver.answerWith(() => ({ status: 200 }));
  await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  h.clock.advance(3_600_000);
  await worker.drain();
  assert.equal(receiver.received.length, 20);

  const enabled = await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, {
    key,
    payload: { active: true },
  });
  assert.deepEqual(
    [
      (json(enabled) as { webhook: { active: boolean } }).webhook.active,
      (json(enabled) as { webhook: { consecutive_failures: number } }).webhook.consecutive_failures,
    ],
    [true, 0],
  );
  await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  await worker.drain();
  assert.equal(receiver.received.length, 21);
  assert.equal(bodyOf(receiver.received[20] as ReceivedDelivery).event, 'release.live');
});

test('deleting a webhook drops its queued deliveries', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await call(h, 'DELETE', `/api/v1/webhooks/${webhook.id}`, { key });
  await worker.drain();
  assert.equal(receiver.received.length, 0);
  const jobs = await h.ctx.db
    .selectFrom('jobs')
    .select('kind')
    .where('kind', '=', 'webhook.delivery')
    .execute();
  assert.deepEqual(jobs, []);
});

test('a delivery taken over from a server that died keeps its three attempts', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  receiver.answerWith(() => ({ status: 500 }));
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  // A server claims the delivery and dies before sending it.
  const now = h.clock.now();
  await claimDueJobs(
    h.ctx.db,
    h.ctx.dialect,
    now.toISOString(),
    new Date(now.getTime() + 25_000).toISOString(),
    10,
  );
  for (const wait of [25_000, 30_000, 300_000, 3_600_000]) {
    h.clock.advance(wait);
    await worker.drain();
  }
  const { body } = await deliveryLog(h, key, webhook.id);
  assert.deepEqual(
    body.deliveries.map((d) => d.attempt),
    [3, 2, 1],
  );
});

test('a success in between starts the count of failures again', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS, limiter: UNMETERED });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  const sendTests = async (count: number, status: number) => {
    receiver.answerWith(() => ({ status }));
    for (let i = 0; i < count; i += 1) await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
    await worker.drain();
  };
  await sendTests(19, 500);
  await sendTests(1, 200);
  await sendTests(19, 500);
  const [state] = (
    json(await call(h, 'GET', '/api/v1/webhooks', { key })) as { webhooks: Array<Record<string, unknown>> }
  ).webhooks;
  assert.deepEqual([state?.active, state?.consecutive_failures], [true, 19]);
});
