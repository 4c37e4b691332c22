import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  bodyOf,
  givenWebhook,
  givenWorker,
  LOOPBACK_RECEIVERS,
  signedBy,
  UNMETERED,
} from '../helpers/webhooks.ts';

test('at 15 failures in a row the label’s other active webhooks get webhook.failing, once per run', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS, limiter: UNMETERED });
  const receiver = await startReceiver(t);
  receiver.answerWith((delivery) => ({ status: delivery.path === '/failing' ? 500 : 200 }));
  const { key } = await givenCaller(h);
  const other = await givenCaller(h);
  const failing = await givenWebhook(h, key, `${receiver.origin}/failing`, ['release.live']);
  const releasesOnly = await givenWebhook(h, key, `${receiver.origin}/releases`, ['release.live']);
  const switchedOff = await givenWebhook(h, key, `${receiver.origin}/off`, ['webhook.failing']);
  await call(h, 'PATCH', `/api/v1/webhooks/${switchedOff.id}`, { key, payload: { active: false } });
  await givenWebhook(h, other.key, `${receiver.origin}/other-label`, ['webhook.failing']);
  const { worker } = givenWorker(t, h, receiver, { concurrency: 1 });
  const fail = async (times: number) => {
    for (let i = 0; i < times; i += 1) {
      await call(h, 'POST', `/api/v1/webhooks/${failing.id}/test`, { key });
    }
    await worker.drain();
  };
  const warnings = () => receiver.received.filter((delivery) => bodyOf(delivery).event === 'webhook.failing');

  await fail(14);
  assert.deepEqual(warnings(), [], 'not before the 15th failure');
  await fail(1);
  const expectedData = {
    webhook: { id: failing.id, url: `${receiver.origin}/failing` },
    consecutive_failures: 15,
  };
  assert.deepEqual(
    warnings().map((delivery) => [delivery.path, delivery.headers['x-service-event'], bodyOf(delivery).data]),
    [['/releases', 'webhook.failing', expectedData]],
    'to every other active webhook of the label, whatever its events; not to the failing one',
  );
  const [warning] = warnings();
  assert.ok(warning && signedBy(warning, releasesOnly.secret));

  await fail(4);
  assert.equal(warnings().length, 1, 'once per run of failures');
  const listed = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as {
    webhooks: Array<{ id: number; active: boolean; consecutive_failures: number }>;
  };
  assert.deepEqual(
    listed.webhooks.map((webhook) => [webhook.id, webhook.active, webhook.consecutive_failures]),
    [
      [failing.id, true, 19],
      [releasesOnly.id, true, 0],
      [switchedOff.id, false, 0],
    ],
  );
  const feed = await call(h, 'GET', '/api/v1/events?types=webhook.failing', { key });
  assert.equal(feed.statusCode, 200);
  const events = (json(feed) as { events: Array<Record<string, unknown>> }).events;
  assert.deepEqual(
    events.map((event) => [event.event, event.data]),
    [['webhook.failing', expectedData]],
  );
  assert.equal(bodyOf(warning).created_at, events[0]?.created_at);
  const otherFeed = json(await call(h, 'GET', '/api/v1/events?types=webhook.failing', { key: other.key }));
  assert.deepEqual((otherFeed as { events: unknown[] }).events, [], 'another label hears nothing');

  // Switched back on, the count starts again, and a new run warns again.
  await call(h, 'PATCH', `/api/v1/webhooks/${failing.id}`, { key, payload: { active: true } });
  await fail(15);
  assert.deepEqual(
    warnings().map((delivery) => [delivery.path, bodyOf(delivery).data]),
    [
      ['/releases', expectedData],
      ['/releases', expectedData],
    ],
  );
});
