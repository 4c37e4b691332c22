import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';
import { type ReceivedDelivery, type Receiver, startReceiver } from '../helpers/receiver.ts';
import {
  bodyOf,
  deliveryLog,
  givenWebhook,
  givenWorker,
  HOOK_URL,
  harness,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
  signedBy,
  UNMETERED,
} from '../helpers/webhooks.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

async function setUp(t: TestContext) {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS, limiter: UNMETERED });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, receiver, { concurrency: 1 });
  return { h, receiver, label, key, worker };
}

function recover(
  h: Harness,
  key: string,
  webhookId: number,
  since: unknown,
): Promise<LightMyRequestResponse> {
  return call(h, 'POST', `/api/v1/webhooks/${webhookId}/recover`, { key, payload: { since } });
}

async function sendTest(h: Harness, key: string, webhookId: number): Promise<number> {
  const response = await call(h, 'POST', `/api/v1/webhooks/${webhookId}/test`, { key });
  assert.equal(response.statusCode, 202);
  return (json(response) as { event_id: number }).event_id;
}

function arrivedAt(receiver: Receiver, path: string): ReceivedDelivery[] {
  return receiver.received.filter((delivery) => delivery.path === path);
}

/** Runs every retry that falls due in the next hour: a delivery's three attempts are then over. */
async function letRetriesRunOut(h: Harness, worker: { drain(): Promise<void> }): Promise<void> {
  for (const wait of [30_000, 300_000, 3_600_000]) {
    h.clock.advance(wait);
    await worker.drain();
  }
}

test('recover sends again, once, every event the webhook should have had and never took with a 2xx', async (t) => {
  const { h, receiver, label, key, worker } = await setUp(t);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const hookA = await givenWebhook(h, key, `${receiver.origin}/a`, ['release.live', 'release.approved']);
  const hookB = await givenWebhook(h, key, `${receiver.origin}/b`, ['release.live']);
  const live = liveWorkspace(label.id);
  const start = h.clock.now().toISOString();

  const taken = await publishEvent(h, live, 'release.live', { upc: '036000291452' });
  await worker.drain();
  assert.equal(arrivedAt(receiver, '/a').length, 1);

  // The outage: /a answers 503 to everything.
  h.clock.advance(60 * MINUTE);
  const outageStart = h.clock.now().toISOString();
  receiver.answerWith((delivery) => ({ status: delivery.path === '/a' ? 503 : 200 }));
  const missedLive = await publishEvent(h, live, 'release.live', { upc: '036000291469' });
  const missedApproved = await publishEvent(h, live, 'release.approved', { comment: 'ok' });
  await publishEvent(h, live, 'release.rejected', { comment: 'not subscribed' });
  await sendTest(h, key, hookB.id);
  const missedTest = await sendTest(h, key, hookA.id);
  const missedSandboxTest = await sendTest(h, sandboxKey, hookA.id);
  await worker.drain();

  const whilePending = await recover(h, key, hookA.id, outageStart);
  assert.equal(whilePending.statusCode, 202);
  assert.deepEqual(json(whilePending), { queued: 0 }, 'every miss still has its retries queued');

  await letRetriesRunOut(h, worker);
  const stillRetrying = await publishEvent(h, live, 'release.live', { upc: '036000291476' });
  await worker.drain();
  const failedAttempts = arrivedAt(receiver, '/a').length;

  const recovered = await recover(h, key, hookA.id, start);
  assert.equal(recovered.statusCode, 202);
  assert.deepEqual(json(recovered), { queued: 4 });
  assert.equal(recovered.headers['cache-control'], 'no-store');
  assert.equal(typeof recovered.headers['x-api-version'], 'string');
  assert.equal(recovered.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(json(await recover(h, key, hookA.id, start)), { queued: 0 }, 'nothing queued twice');

  receiver.answerWith(() => ({ status: 200 }));
  await worker.drain();
  const redelivered = arrivedAt(receiver, '/a').slice(failedAttempts);
  assert.deepEqual(
    redelivered.map((delivery) => {
      const body = bodyOf(delivery);
      return [body.event, body.event_id, body.redelivery, body.data.sandbox ?? false];
    }),
    [
      ['release.live', missedLive, true, false],
      ['release.approved', missedApproved, true, false],
      ['webhook.test', missedTest, true, false],
      ['webhook.test', missedSandboxTest, true, true],
    ],
  );
  for (const delivery of redelivered) {
    assert.ok(signedBy(delivery, hookA.secret));
    assert.equal(delivery.headers['x-service-delivery-id'], bodyOf(delivery).id);
  }
  const firstIds = new Set(receiver.received.slice(0, failedAttempts).map((delivery) => bodyOf(delivery).id));
  assert.ok(
    redelivered.every((delivery) => !firstIds.has(bodyOf(delivery).id)),
    'new delivery ids',
  );

  // The event still retrying was left to its retry, which now succeeds.
  h.clock.advance(30_000);
  await worker.drain();
  const last = arrivedAt(receiver, '/a').at(-1);
  assert.ok(last);
  assert.deepEqual([bodyOf(last).event_id, bodyOf(last).redelivery], [undefined, undefined]);
  assert.equal(bodyOf(last).data.upc, '036000291476');
  assert.notEqual(stillRetrying, taken);

  assert.deepEqual(json(await recover(h, key, hookA.id, start)), { queued: 0 }, 'all taken now');
  const { body } = await deliveryLog(h, key, hookA.id, '?per_page=4');
  assert.deepEqual(
    body.deliveries.map((attempt) => [attempt.event_id, attempt.ok]),
    [
      [stillRetrying, true],
      [missedSandboxTest, true],
      [missedTest, true],
      [missedApproved, true],
    ],
  );
  assert.deepEqual(
    arrivedAt(receiver, '/b').map((delivery) => [bodyOf(delivery).event, bodyOf(delivery).redelivery]),
    [
      ['release.live', undefined],
      ['release.live', undefined],
      ['webhook.test', undefined],
      ['release.live', undefined],
    ],
    'the other webhook had its own deliveries, and nothing from the recovery',
  );
});

test('after a switch-off, recover fills the gap: the failed deliveries and the events that skipped it', async (t) => {
  const { h, receiver, label, key, worker } = await setUp(t);
  const live = liveWorkspace(label.id);
  const beforeTheWebhook = await publishEvent(h, live, 'release.live', { upc: '036000291452' });
  h.clock.advance(5 * MINUTE);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`, ['release.live']);
  receiver.answerWith(() => ({ status: 500 }));
  const tests = [];
  for (let i = 0; i < 20; i += 1) tests.push(await sendTest(h, key, webhook.id));
  await worker.drain();
  const skipped = await publishEvent(h, live, 'release.live', { upc: '036000291469' });
  await letRetriesRunOut(h, worker);
  assert.equal(receiver.received.length, 20, 'switched off after 20 failures: nothing more was sent');

  const refused = await recover(h, key, webhook.id, '2026-03-02T10:00:00.000Z');
  assert.equal(refused.statusCode, 409);
  assert.deepEqual(json(refused), {
    error: 'This webhook is disabled; re-enable it with PATCH {"active": true} first',
    code: 'conflict',
    webhook_id: webhook.id,
  });

  receiver.answerWith(() => ({ status: 200 }));
  await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, { key, payload: { active: true } });
  const recovered = await recover(h, key, webhook.id, '2026-03-02T10:00:00.000Z');
  assert.deepEqual([recovered.statusCode, json(recovered)], [202, { queued: 21 }]);
  await worker.drain();
  const bodies = receiver.received.slice(20).map(bodyOf);
  assert.deepEqual(
    bodies.map((body) => body.event_id),
    [...tests, skipped],
  );
  assert.ok(bodies.every((body) => body.redelivery === true));
  assert.ok(!bodies.some((body) => body.event_id === beforeTheWebhook), 'nothing from before its creation');
});

test('recover: since within 14 days, a date-time, not ahead; other labels 404; scope and plan enforced', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, HOOK_URL, ['release.live']);
  const now = h.clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  for (const [since, message] of [
    [undefined, null],
    ['yesterday', null],
    [12, null],
    [iso(now - 14 * DAY - 1), `since may be at most 14 days back, not before ${iso(now - 14 * DAY)}`],
    [iso(now + 1), 'since is in the future'],
  ] as const) {
    const response = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/recover`, {
      key,
      payload: since === undefined ? {} : { since },
    });
    assert.equal(response.statusCode, 400, String(since));
    const body = json(response) as { error: string; code: string; field: string };
    assert.deepEqual([body.code, body.field], ['invalid', 'since'], String(since));
    if (message) assert.equal(body.error, message);
  }
  const jobs = await h.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'webhook.delivery')
    .execute();
  assert.deepEqual(jobs, [], 'nothing queued by a refused call');

  for (const since of [iso(now - 14 * DAY), iso(now), '2026-03-02T12:00:00+02:00']) {
    const response = await recover(h, key, webhook.id, since);
    assert.deepEqual([response.statusCode, json(response)], [202, { queued: 0 }], since);
  }

  const other = await givenCaller(h);
  const notFound = await recover(h, other.key, webhook.id, iso(now));
  assert.equal(notFound.statusCode, 404);
  assert.deepEqual(json(notFound), { error: 'Webhook not found', code: 'not_found' });

  const reader = await givenCaller(h, { scopes: ['catalog:read'] });
  const forbidden = await recover(h, reader.key, webhook.id, iso(now));
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(json(forbidden), {
    error: 'This key lacks the scope webhooks:manage',
    code: 'forbidden',
    required_scope: 'webhooks:manage',
  });
});

test('recover sends a webhook the warnings about others it missed, never the one about itself', async (t) => {
  const { h, receiver, key, worker } = await setUp(t);
  const failing = await givenWebhook(h, key, `${receiver.origin}/failing`, ['release.live']);
  const warned = await givenWebhook(h, key, `${receiver.origin}/warned`, ['release.live']);
  const start = h.clock.now().toISOString();
  receiver.answerWith(() => ({ status: 500 }));
  for (let i = 0; i < 15; i += 1) await sendTest(h, key, failing.id);
  await worker.drain();
  await letRetriesRunOut(h, worker);
  const warnings = receiver.received.filter((delivery) => bodyOf(delivery).event === 'webhook.failing');
  assert.deepEqual(
    warnings.map((delivery) => delivery.path),
    ['/warned', '/warned', '/warned'],
    'one warning, in three failed attempts',
  );

  receiver.answerWith(() => ({ status: 200 }));
  const before = receiver.received.length;
  assert.deepEqual(json(await recover(h, key, warned.id, start)), { queued: 1 });
  // Its retries took it past 20 failures: switched off, it is switched on before recovering.
  await call(h, 'PATCH', `/api/v1/webhooks/${failing.id}`, { key, payload: { active: true } });
  assert.deepEqual(json(await recover(h, key, failing.id, start)), { queued: 15 });
  await worker.drain();
  const recovered = receiver.received.slice(before);
  assert.deepEqual(
    recovered.map((delivery) => [delivery.path, bodyOf(delivery).event]).sort(),
    [
      ['/failing', 'webhook.test'],
      ['/warned', 'webhook.failing'],
    ]
      .concat(Array.from({ length: 14 }, () => ['/failing', 'webhook.test']))
      .sort(),
  );
  const [warning] = recovered.filter((delivery) => delivery.path === '/warned');
  assert.ok(warning);
  assert.deepEqual(bodyOf(warning).data, {
    webhook: { id: failing.id, url: `${receiver.origin}/failing` },
    consecutive_failures: 15,
  });
});
