import assert from 'node:assert/strict';
import { test } from 'node:test';
import Stripe from 'stripe';
import { publish } from '../../src/modules/events/events.service.ts';
import { buildHarness, call, givenCaller, givenKey, json } from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  type Body,
  bodyOf,
  deliveryLog,
  givenWebhook,
  givenWorker,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
} from '../helpers/webhooks.ts';

const stripe = new Stripe('sk_test_unused');

test('a test delivery arrives signed: the stripe verifier accepts it with our secret', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks/labeldesk`);
  const worker = givenWorker(t, h, receiver);

  const queued = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  assert.equal(queued.statusCode, 202);
  const { delivery_id, event_id } = json(queued) as { delivery_id: string; event_id: number };
  await worker.worker.drain();

  assert.equal(receiver.received.length, 1);
  const [delivery] = receiver.received;
  assert.ok(delivery);
  const signature = String(delivery.headers['x-service-signature']);
  assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
  const nowSeconds = Math.floor(h.clock.now().getTime() / 1000);
  const verified = stripe.webhooks.constructEvent(
    delivery.body,
    signature,
    webhook.secret,
    300,
    undefined,
    nowSeconds,
  );
  assert.deepEqual(verified, {
    id: delivery_id,
    event: 'webhook.test',
    created_at: h.clock.now().toISOString(),
    data: { message: 'A test delivery from Labeldesk' },
  });
  assert.equal(delivery.path, '/hooks/labeldesk');
  assert.equal(delivery.headers['content-type'], 'application/json');
  assert.equal(delivery.headers['x-service-event'], 'webhook.test');
  assert.equal(delivery.headers['x-service-delivery-id'], delivery_id);
  assert.ok(event_id > 0);

  const log = await call(h, 'GET', `/api/v1/webhooks/${webhook.id}/deliveries`, { key });
  assert.equal(log.statusCode, 200);
  const body = json(log) as { deliveries: Array<Record<string, unknown>> };
  assert.equal(body.deliveries.length, 1);
});

test('events go to the active webhooks that subscribe to them, only once committed; sandbox events too', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const live = await givenWebhook(h, key, `${receiver.origin}/live`, ['release.live']);
  await givenWebhook(h, key, `${receiver.origin}/approved`, ['release.approved']);
  const off = await givenWebhook(h, key, `${receiver.origin}/off`, ['release.live']);
  await call(h, 'PATCH', `/api/v1/webhooks/${off.id}`, { key, payload: { active: false } });
  const { worker } = givenWorker(t, h, receiver);

  await assert.rejects(
    h.ctx.db.transaction().execute(async (trx) => {
      await publish(
        trx,
        liveWorkspace(label.id),
        'release.live',
        { upc: 'rolled back' },
        h.clock.now().toISOString(),
      );
      throw new Error('the change failed');
    }),
  );
  const eventId = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  await givenKey(h, label.id, { sandbox: true });
  const { id: sandboxId } = await h.ctx.db
    .selectFrom('labels')
    .select('id')
    .where('parent_id', '=', label.id)
    .executeTakeFirstOrThrow();
  await publishEvent(
    h,
    { id: sandboxId, labelId: label.id, sandbox: true, catalogCopied: true },
    'release.live',
    {
      upc: '4006381333931',
    },
  );
  await worker.drain();

  assert.deepEqual(
    receiver.received.map((d) => [d.path, bodyOf(d).data]),
    [
      ['/live', { upc: '036000291452' }],
      ['/live', { upc: '4006381333931', sandbox: true }],
    ],
  );
  const feed = json(await call(h, 'GET', '/api/v1/events', { key })) as { events: Array<{ id: number }> };
  assert.deepEqual(
    feed.events.map((e) => e.id),
    [eventId],
  );
  assert.equal((await deliveryLog(h, key, live.id)).body.total, 2);
});

test('after rotate-secret deliveries are signed with the new secret: stripe rejects the old one', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  const rotated = json(await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/rotate-secret`, { key })) as {
    webhook: { secret: string };
  };
  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await worker.drain();
  const [delivery] = receiver.received;
  assert.ok(delivery);
  const header = String(delivery.headers['x-service-signature']);
  const now = Math.floor(h.clock.now().getTime() / 1000);
  assert.equal(
    (
      stripe.webhooks.constructEvent(
        delivery.body,
        header,
        rotated.webhook.secret,
        300,
        undefined,
        now,
      ) as unknown as Body
    ).event,
    'webhook.test',
  );
  assert.throws(
    () => stripe.webhooks.constructEvent(delivery.body, header, webhook.secret, 300, undefined, now),
    /No signatures found matching the expected signature/,
  );
});

test('redeliver sends a feed event again under a new delivery id with redelivery: true and event_id', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`, ['release.live']);
  const { worker } = givenWorker(t, h, receiver);
  const eventId = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  await worker.drain();

  const response = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/redeliver`, {
    key,
    payload: { event_id: eventId },
  });
  assert.equal(response.statusCode, 202);
  const queued = json(response) as { delivery_id: string; event_id: number };
  assert.equal(queued.event_id, eventId);
  await worker.drain();
  const [first, again] = receiver.received.map(bodyOf);
  assert.ok(first && again);
  assert.notEqual(again.id, first.id);
  assert.deepEqual(again, {
    id: queued.delivery_id,
    event: 'release.live',
    created_at: first.created_at,
    data: { upc: '036000291452' },
    redelivery: true,
    event_id: eventId,
  });
  assert.equal(first.redelivery, undefined);

  const otherEvent = await publishEvent(h, liveWorkspace(other.label.id), 'release.live', { upc: 'x' });
  for (const event_id of [otherEvent, eventId + 1000]) {
    const refused = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/redeliver`, {
      key,
      payload: { event_id },
    });
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(json(refused), {
      error: 'No event with this id in this workspace (events are kept 90 days)',
      code: 'invalid',
      field: 'event_id',
    });
  }
});

test('the address is checked again at delivery: a name that now resolves to a refused address gets nothing', async (t) => {
  const answers = new Map([['receiver.test', '127.0.0.1']]);
  const h = await buildHarness(t, {
    env: LOOPBACK_RECEIVERS,
    resolveHost: async (hostname) => {
      const address = answers.get(hostname);
      if (!address)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [{ address, family: 4 }];
    },
  });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `https://receiver.test:${receiver.port}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  answers.set('receiver.test', '127.0.0.2');
  await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  await worker.drain();
  assert.equal(receiver.received.length, 0);
  const [attempt] = (await deliveryLog(h, key, webhook.id)).body.deliveries;
  assert.equal(attempt?.ok, false);
  assert.equal(attempt?.status, null);
  assert.equal(attempt?.error, 'receiver.test resolves to a loopback address');

  answers.set('receiver.test', '127.0.0.1');
  h.clock.advance(30_000);
  await worker.drain();
  assert.equal(receiver.received.length, 1, 'the retry goes to the checked address');
});

test('the delivery log pages newest first with Link and X-Total-Count', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  const ids: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    ids.push(
      (json(await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key })) as { delivery_id: string })
        .delivery_id,
    );
    await worker.drain();
  }
  const { response, body } = await deliveryLog(h, key, webhook.id, '?per_page=2');
  assert.deepEqual(
    body.deliveries.map((d) => d.delivery_id),
    [ids[2], ids[1]],
  );
  assert.deepEqual({ ...body, deliveries: [] }, { deliveries: [], page: 1, per_page: 2, total: 3 });
  assert.match(String(response.headers.link), /rel="next"/);
});

test('GET /status counts the delivery attempts and failures of the last 24 hours across labels', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  receiver.answerWith((d) => ({ status: d.path === '/bad' ? 500 : 200 }));
  const first = await givenCaller(h);
  const second = await givenCaller(h);
  const good = await givenWebhook(h, first.key, `${receiver.origin}/good`);
  const bad = await givenWebhook(h, second.key, `${receiver.origin}/bad`);
  const { worker } = givenWorker(t, h, receiver);
  await call(h, 'POST', `/api/v1/webhooks/${good.id}/test`, { key: first.key });
  await call(h, 'POST', `/api/v1/webhooks/${bad.id}/test`, { key: second.key });
  await worker.drain();
  const webhooksCheck = async () =>
    (json(await call(h, 'GET', '/api/v1/status')) as { checks: { webhooks: unknown } }).checks.webhooks;
  assert.deepEqual(await webhooksCheck(), { ok: true, deliveries_24h: 2, failed_24h: 1 });
  h.clock.advance(30_000);
  await worker.drain();
  assert.deepEqual(await webhooksCheck(), { ok: true, deliveries_24h: 3, failed_24h: 2 });
  h.clock.advance(24 * 3_600_000 - 15_000);
  assert.deepEqual(await webhooksCheck(), { ok: true, deliveries_24h: 1, failed_24h: 1 });
});

test('a burst to a slow but sound receiver is delivered whole: no request waits out its timeout for a connection', async (t) => {
  const h = await buildHarness(t, { env: { ...LOOPBACK_RECEIVERS, WEBHOOK_TIMEOUT: '1s' } });
  const receiver = await startReceiver(t);
  receiver.answerWith(() => ({ status: 200, delayMs: 400 }));
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`, ['release.live']);
  const { worker } = givenWorker(t, h, receiver);
  for (let i = 0; i < 48; i += 1) await publishEvent(h, liveWorkspace(label.id), 'release.live', { n: i });
  await worker.drain();
  const { body } = await deliveryLog(h, key, webhook.id, '?per_page=100');
  assert.equal(body.total, 48);
  assert.ok(body.deliveries.every((d) => d.ok === true));
});

test('redeliver to a disabled webhook is 409', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`, ['release.live']);
  const eventId = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, { key, payload: { active: false } });
  const response = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/redeliver`, {
    key,
    payload: { event_id: eventId },
  });
  assert.equal(response.statusCode, 409);
  assert.deepEqual(json(response), {
    error: 'This webhook is disabled; re-enable it with PATCH {"active": true} first',
    code: 'conflict',
    webhook_id: webhook.id,
  });
});
