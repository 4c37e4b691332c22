import assert from 'node:assert/strict';
import { test } from 'node:test';
import Stripe from 'stripe';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { givenWebhook, givenWorker, LOOPBACK_RECEIVERS } from '../helpers/webhooks.ts';

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
