import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from '../../src/http/rate-limiter.ts';
import { EVENT_KINDS } from '../../src/modules/events/events.catalog.ts';
import { updateLabel } from '../../src/modules/labels/labels.service.ts';
import { decryptSecret } from '../../src/modules/webhooks/webhooks.secrets.ts';
import {
  buildHarness,
  call,
  givenCaller,
  givenKey,
  type Harness,
  json,
  TEST_REDIS_URL,
} from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  givenWebhook,
  givenWorker,
  HOOK_URL,
  harness,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
} from '../helpers/webhooks.ts';

const NOW = '2026-03-02T10:00:00.000Z';

async function deliveryJobCount(h: Harness): Promise<number> {
  const jobs = await h.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'webhook.delivery')
    .execute();
  return jobs.length;
}

test('webhooks need the Label plan: Start gets 403 plan_required on every webhook route', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h, { plan: 'start' });
  const expected = {
    error: 'The webhooks:manage scope needs the Label plan or above',
    code: 'plan_required',
    required_plan: 'label',
    required_scope: 'webhooks:manage',
  };
  for (const [method, url, payload] of [
    ['GET', '/api/v1/webhooks', undefined],
    ['POST', '/api/v1/webhooks', { url: HOOK_URL, events: ['release.live'] }],
    ['PATCH', '/api/v1/webhooks/1', { active: true }],
    ['DELETE', '/api/v1/webhooks/1', undefined],
    ['POST', '/api/v1/webhooks/1/test', undefined],
    ['GET', '/api/v1/webhooks/1/deliveries', undefined],
    ['POST', '/api/v1/webhooks/1/rotate-secret', undefined],
    ['POST', '/api/v1/webhooks/1/redeliver', { event_id: 1 }],
    ['POST', '/api/v1/webhooks/1/recover', { since: NOW }],
  ] as const) {
    const response = await call(h, method, url, { key, ...(payload && { payload }) });
    assert.equal(response.statusCode, 403, `${method} ${url}`);
    assert.deepEqual(json(response), expected, `${method} ${url}`);
  }
});

test('plan limits: Label 3, Pro 10, Enterprise 25 webhooks, then 403 plan_limit; /me counts them', async (t) => {
  const h = await harness(t);
  for (const [plan, limit, requiredPlan] of [
    ['label', 3, 'pro'],
    ['pro', 10, 'enterprise'],
    ['enterprise', 25, null],
  ] as const) {
    const { key } = await givenCaller(h, { plan });
    for (let i = 0; i < limit; i += 1) await givenWebhook(h, key, `${HOOK_URL}/${i}`);
    const refused = await call(h, 'POST', '/api/v1/webhooks', {
      key,
      payload: { url: HOOK_URL, events: ['release.live'] },
    });
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(json(refused), {
      error: 'The webhooks limit of the plan is used up',
      code: 'plan_limit',
      resource: 'webhooks',
      plan,
      limit,
      used: limit,
      required_plan: requiredPlan,
    });
    const me = json(await call(h, 'GET', '/api/v1/me', { key })) as { plan: { usage: { webhooks: number } } };
    assert.equal(me.plan.usage.webhooks, limit);
  }
});

test('parallel creations never pass the plan limit', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const responses = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      call(h, 'POST', '/api/v1/webhooks', {
        key,
        payload: { url: `${HOOK_URL}/${i}`, events: ['release.live'] },
      }),
    ),
  );
  assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 201, 201, 403, 403, 403, 403, 403]);
  const list = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as { webhooks: unknown[] };
  assert.equal(list.webhooks.length, 3);
});

test('webhook routes need webhooks:manage; GET /webhooks/events takes any key', async (t) => {
  const h = await harness(t);
  const { label } = await givenCaller(h);
  const reader = await givenKey(h, label.id, { scopes: ['catalog:read'] });
  const refused = await call(h, 'GET', '/api/v1/webhooks', { key: reader });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(json(refused), {
    error: 'This key lacks the scope webhooks:manage',
    code: 'forbidden',
    required_scope: 'webhooks:manage',
  });
  const kinds = await call(h, 'GET', '/api/v1/webhooks/events', { key: reader });
  assert.equal(kinds.statusCode, 200);
  assert.deepEqual(json(kinds), {
    events: Object.entries(EVENT_KINDS).map(([event, description]) => ({ event, description })),
  });
  assert.equal((await call(h, 'GET', '/api/v1/webhooks/events')).statusCode, 401);
});

test('a sandbox key lists the shared webhooks but every change is 403 live_key_required', async (t) => {
  const h = await harness(t);
  const { label, key } = await givenCaller(h);
  const sandbox = await givenKey(h, label.id, { sandbox: true });
  const webhook = await givenWebhook(h, key, HOOK_URL, ['release.live']);
  const event = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  const before = json(await call(h, 'GET', '/api/v1/webhooks', { key }));
  const listed = await call(h, 'GET', '/api/v1/webhooks', { key: sandbox });
  assert.equal(listed.statusCode, 200);
  assert.equal(listed.headers['x-sandbox'], 'true');
  assert.deepEqual(json(listed), before);
  assert.equal((await call(h, 'GET', '/api/v1/webhooks/events', { key: sandbox })).statusCode, 200);

  for (const [method, path, payload, action] of [
    ['POST', '', { url: 'https://hooks.example.com/mine', events: ['release.live'] }, 'create a webhook'],
    ['PATCH', `/${webhook.id}`, { url: 'https://hooks.example.com/mine' }, 'change a webhook'],
    ['DELETE', `/${webhook.id}`, undefined, 'delete a webhook'],
    ['POST', `/${webhook.id}/rotate-secret`, undefined, "rotate a webhook's secret"],
    ['POST', `/${webhook.id}/redeliver`, { event_id: event }, 'redeliver an event'],
    ['POST', `/${webhook.id}/recover`, { since: NOW }, 'recover deliveries'],
  ] as const) {
    const response = await call(h, method, `/api/v1/webhooks${path}`, {
      key: sandbox,
      ...(payload && { payload }),
    });
    assert.equal(response.statusCode, 403, `${method} ${path}`);
    assert.deepEqual(json(response), {
      error: `A live key is needed to ${action}; a sandbox (svc_test_) key cannot`,
      code: 'live_key_required',
    });
  }
  assert.deepEqual(json(await call(h, 'GET', '/api/v1/webhooks', { key })), before);
  const stored = await h.ctx.db.selectFrom('webhooks').select('secret').executeTakeFirstOrThrow();
  assert.equal(decryptSecret(h.ctx.config, stored.secret), webhook.secret);
  assert.equal(await deliveryJobCount(h), 1, 'only the live event was queued, nothing redelivered');
});

test("a sandbox key's test is marked data.sandbox: true; the log it reads holds only its sandbox's attempts", async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const sandbox = await givenKey(h, label.id, { sandbox: true });
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hook`);
  const { worker } = givenWorker(t, h, receiver);
  const sendTest = async (caller: string) => {
    const response = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key: caller });
    assert.equal(response.statusCode, 202);
    return json(response) as { delivery_id: string; event_id: number };
  };
  // One at a time: drained together, the two deliveries could finish (and be logged) in either order.
  const live = await sendTest(key);
  await worker.drain();
  const test = await sendTest(sandbox);
  await worker.drain();

  assert.deepEqual(
    receiver.received.map((delivery) => JSON.parse(delivery.body) as unknown),
    [
      {
        id: live.delivery_id,
        event: 'webhook.test',
        created_at: NOW,
        data: { message: 'A test delivery from Labeldesk' },
      },
      {
        id: test.delivery_id,
        event: 'webhook.test',
        created_at: NOW,
        data: { message: 'A test delivery from Labeldesk', sandbox: true },
      },
    ],
  );
  const logOf = async (caller: string) => {
    const response = await call(h, 'GET', `/api/v1/webhooks/${webhook.id}/deliveries`, { key: caller });
    assert.equal(response.statusCode, 200);
    return json(response) as { deliveries: Array<{ delivery_id: string }>; total: number };
  };
  const sandboxLog = await logOf(sandbox);
  assert.deepEqual(
    { ids: sandboxLog.deliveries.map((d) => d.delivery_id), total: sandboxLog.total },
    { ids: [test.delivery_id], total: 1 },
  );
  const liveLog = await logOf(key);
  assert.deepEqual(
    { ids: liveLog.deliveries.map((d) => d.delivery_id), total: liveLog.total },
    { ids: [test.delivery_id, live.delivery_id], total: 2 },
  );
});

const limiters: Array<[string, (t: TestContext) => RateLimiter]> = [
  ['memory', () => new MemoryRateLimiter()],
];
if (TEST_REDIS_URL) {
  const redisUrl = TEST_REDIS_URL;
  limiters.push([
    'redis',
    (t) => {
      const limiter = new RedisRateLimiter(redisUrl, `labeldesk-test:${randomBytes(6).toString('hex')}:`);
      t.after(() => limiter.close());
      return limiter;
    },
  ]);
}

for (const [store, limiter] of limiters) {
  test(`[${store}] tests and redeliveries share 10 a minute per webhook: then 429 rate_limited with Retry-After`, async (t) => {
    const h = await harness(t, limiter(t));
    const { label, key } = await givenCaller(h);
    const webhook = await givenWebhook(h, key, HOOK_URL);
    const other = await givenWebhook(h, key, `${HOOK_URL}/other`);
    const event = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
    const send = (id: number, i: number) =>
      i % 2 === 0
        ? call(h, 'POST', `/api/v1/webhooks/${id}/test`, { key })
        : call(h, 'POST', `/api/v1/webhooks/${id}/redeliver`, { key, payload: { event_id: event } });
    for (let i = 0; i < 10; i += 1) assert.equal((await send(webhook.id, i)).statusCode, 202, `request ${i}`);
    h.clock.advance(30_000);
    for (const i of [10, 11]) {
      const refused = await send(webhook.id, i);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '30');
      assert.deepEqual(json(refused), {
        error: 'At most 10 of these requests a minute per webhook',
        code: 'rate_limited',
      });
    }
    assert.equal((await send(other.id, 0)).statusCode, 202, 'another webhook has its own budget');
    assert.equal(await deliveryJobCount(h), 11);
    h.clock.advance(30_000);
    assert.equal((await send(webhook.id, 0)).statusCode, 202, 'the window has moved on');
  });
}

test("a sandbox key's tests spend a budget of its own, never the live keys'", async (t) => {
  const h = await harness(t);
  const { label, key } = await givenCaller(h);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const webhook = await givenWebhook(h, key, HOOK_URL);
  const sendTest = (caller: string) =>
    call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key: caller });
  for (let i = 0; i < 10; i += 1)
    assert.equal((await sendTest(sandboxKey)).statusCode, 202, `sandbox test ${i}`);
  const refused = await sendTest(sandboxKey);
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['x-sandbox'], 'true');
  assert.equal((await sendTest(key)).statusCode, 202);
});

test('after a move to Start no deliveries are queued for the label', async (t) => {
  const h = await harness(t);
  const { label, key } = await givenCaller(h);
  await givenWebhook(h, key, HOOK_URL, ['release.live']);
  await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  await updateLabel(h.ctx, label.id, { plan: 'start' });
  await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '4006381333931' });
  const jobs = await h.ctx.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'webhook.delivery')
    .execute();
  assert.equal(jobs.length, 1);
});
