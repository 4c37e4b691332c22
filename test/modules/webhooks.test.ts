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
  type CreatedWebhook,
  givenWebhook,
  givenWorker,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
} from '../helpers/webhooks.ts';

/** A public address (TEST-NET addresses are refused as reserved, so tests name a real one). */
const PUBLIC_ADDRESS = '93.184.215.14';
const HOOK_URL = `https://${PUBLIC_ADDRESS}/hooks`;
const NOW = '2026-03-02T10:00:00.000Z';

async function deliveryJobCount(h: Harness): Promise<number> {
  const jobs = await h.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'webhook.delivery')
    .execute();
  return jobs.length;
}

async function harness(t: TestContext, limiter?: RateLimiter): Promise<Harness> {
  return buildHarness(t, {
    ...(limiter && { limiter }),
    resolveHost: async (hostname) => {
      if (hostname === 'hooks.example.com') return [{ address: PUBLIC_ADDRESS, family: 4 }];
      if (hostname === 'rebound.example.com') return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    },
  });
}

test('POST /webhooks returns 201 with the secret once; the list never shows it', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/webhooks', {
    key,
    payload: { url: 'https://hooks.example.com/labeldesk', events: ['release.live', 'release.dsp_status'] },
  });
  assert.equal(response.statusCode, 201);
  assert.equal(response.headers['cache-control'], 'no-store');
  const { webhook } = json(response) as { webhook: CreatedWebhook & { created_at: string } };
  assert.equal(response.headers.location, `https://api.labeldesk.test/api/v1/webhooks/${webhook.id}`);
  assert.match(webhook.secret, /^svcwh_[A-Za-z0-9]{40}$/);
  assert.deepEqual(webhook, {
    id: webhook.id,
    url: 'https://hooks.example.com/labeldesk',
    events: ['release.live', 'release.dsp_status'],
    created_at: '2026-03-02T10:00:00.000Z',
    active: true,
    consecutive_failures: 0,
    secret: webhook.secret,
  });

  const list = await call(h, 'GET', '/api/v1/webhooks', { key });
  assert.equal(list.statusCode, 200);
  assert.deepEqual(json(list), {
    webhooks: [
      {
        id: webhook.id,
        url: 'https://hooks.example.com/labeldesk',
        events: ['release.live', 'release.dsp_status'],
        created_at: '2026-03-02T10:00:00.000Z',
        active: true,
        consecutive_failures: 0,
      },
    ],
  });
  assert.ok(!list.body.includes(webhook.secret));
});

test('the secret is stored encrypted under a master key generated into the data dir', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, HOOK_URL);
  const row = await h.ctx.db.selectFrom('webhooks').select('secret').executeTakeFirstOrThrow();
  assert.ok(!row.secret.includes(webhook.secret.slice(6)));
  assert.match(row.secret, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  const { statSync, readFileSync } = await import('node:fs');
  const masterKey = `${h.dataDir}/master.key`;
  assert.equal(statSync(masterKey).mode & 0o777, 0o600);
  assert.match(readFileSync(masterKey, 'utf8'), /^[\w-]{43}\n$/);
});

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

test('bad input is 400 invalid with the field: events, url, active', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const cases: Array<[unknown, string]> = [
    [{ url: HOOK_URL, events: ['release.exploded'] }, 'events.0'],
    [{ url: HOOK_URL, events: [] }, 'events'],
    [{ url: HOOK_URL, events: ['release.live', 'release.live'] }, 'events'],
    [{ url: HOOK_URL }, 'events'],
    [{ events: ['release.live'] }, 'url'],
    [{ url: 42, events: ['release.live'] }, 'url'],
    [{ url: 'not a url', events: ['release.live'] }, 'url'],
  ];
  for (const [payload, field] of cases) {
    const response = await call(h, 'POST', '/api/v1/webhooks', { key, payload: payload as object });
    assert.equal(response.statusCode, 400, JSON.stringify(payload));
    const body = json(response) as { code: string; field: string };
    assert.equal(body.code, 'invalid');
    assert.equal(body.field, field, JSON.stringify(payload));
  }
  const webhook = await givenWebhook(h, key, HOOK_URL);
  const patch = await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, { key, payload: { active: 'yes' } });
  assert.equal(patch.statusCode, 400);
  assert.equal((json(patch) as { field: string }).field, 'active');
  assert.equal(
    (json(await call(h, 'GET', '/api/v1/webhooks', { key })) as { webhooks: unknown[] }).webhooks.length,
    1,
  );
});

test('refused addresses at creation and on PATCH: 400 invalid on url with the reason', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const refused: Array<[string, string]> = [
    ['http://hooks.example.com/x', 'http://hooks.example.com is not https'],
    ['https://127.0.0.1/x', '127.0.0.1 is a loopback address'],
    ['https://2130706433/x', '127.0.0.1 is a loopback address'],
    ['https://0x7f.1/x', '127.0.0.1 is a loopback address'],
    ['https://0177.0.0.1/x', '127.0.0.1 is a loopback address'],
    ['https://10.1.2.3/x', '10.1.2.3 is a private address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
    ['https://[fd00:ec2::254]/x', 'fd00:ec2::254 is a cloud metadata address'],
    ['https://metadata.google.internal/x', 'metadata.google.internal is a cloud metadata host'],
    ['https://api.labeldesk.test/x', "api.labeldesk.test is this service's own host"],
    ['https://rebound.example.com/x', 'rebound.example.com resolves to a loopback address'],
    ['https://nowhere.example.com/x', 'nowhere.example.com does not resolve'],
  ];
  for (const [url, reason] of refused) {
    const response = await call(h, 'POST', '/api/v1/webhooks', {
      key,
      payload: { url, events: ['release.live'] },
    });
    assert.equal(response.statusCode, 400, url);
    assert.deepEqual(
      json(response),
      { error: `This address cannot receive webhooks: ${reason}`, code: 'invalid', field: 'url' },
      url,
    );
  }
  const webhook = await givenWebhook(h, key, 'https://hooks.example.com/ok');
  const patch = await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, {
    key,
    payload: { url: 'https://rebound.example.com/x' },
  });
  assert.equal(patch.statusCode, 400);
  assert.equal((json(patch) as { field: string }).field, 'url');
  const list = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as {
    webhooks: Array<{ url: string }>;
  };
  assert.equal(list.webhooks[0]?.url, 'https://hooks.example.com/ok');
});

test('a host name that really resolves to 127.0.0.1 (localhost, through the system resolver) is refused', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/webhooks', {
    key,
    payload: { url: 'https://localhost:8443/hooks', events: ['release.live'] },
  });
  assert.equal(response.statusCode, 400);
  const body = json(response) as { error: string; field: string };
  assert.equal(body.field, 'url');
  assert.match(
    body.error,
    /^This address cannot receive webhooks: localhost resolves to a loopback address$/,
  );
});

test('PATCH changes url, events and active; active: true resets the failure count', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, HOOK_URL, ['release.live']);
  await h.ctx.db.updateTable('webhooks').set({ active: 0, consecutive_failures: 20 }).execute();
  h.clock.advance(1000);
  const response = await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, {
    key,
    payload: {
      url: 'https://hooks.example.com/v2',
      events: ['release.approved', 'release.rejected'],
      active: true,
    },
  });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    webhook: {
      id: webhook.id,
      url: 'https://hooks.example.com/v2',
      events: ['release.approved', 'release.rejected'],
      created_at: '2026-03-02T10:00:00.000Z',
      active: true,
      consecutive_failures: 0,
    },
  });
  const off = await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, { key, payload: { active: false } });
  assert.equal((json(off) as { webhook: { active: boolean } }).webhook.active, false);
});

test("DELETE removes; another label's webhook answers 404 on every route", async (t) => {
  const h = await harness(t);
  const owner = await givenCaller(h);
  const other = await givenCaller(h);
  const webhook = await givenWebhook(h, owner.key, HOOK_URL);
  for (const [method, path, payload] of [
    ['PATCH', '', { active: true }],
    ['DELETE', '', undefined],
    ['POST', '/test', undefined],
    ['GET', '/deliveries', undefined],
    ['POST', '/rotate-secret', undefined],
    ['POST', '/redeliver', { event_id: 1 }],
  ] as const) {
    const response = await call(h, method, `/api/v1/webhooks/${webhook.id}${path}`, {
      key: other.key,
      ...(payload && { payload }),
    });
    assert.equal(response.statusCode, 404, `${method} ${path}`);
    assert.deepEqual(json(response), { error: 'Webhook not found', code: 'not_found' });
  }
  const deleted = await call(h, 'DELETE', `/api/v1/webhooks/${webhook.id}`, { key: owner.key });
  assert.equal(deleted.statusCode, 200);
  assert.deepEqual(json(deleted), { ok: true });
  assert.equal(
    (await call(h, 'DELETE', `/api/v1/webhooks/${webhook.id}`, { key: owner.key })).statusCode,
    404,
  );
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

test('rotate-secret returns a new secret; the test and redeliver of a disabled webhook are 409', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, HOOK_URL);
  const rotated = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/rotate-secret`, { key });
  assert.equal(rotated.statusCode, 200);
  const body = json(rotated) as { webhook: CreatedWebhook };
  assert.match(body.webhook.secret, /^svcwh_/);
  assert.notEqual(body.webhook.secret, webhook.secret);
  assert.equal(body.webhook.id, webhook.id);

  await call(h, 'PATCH', `/api/v1/webhooks/${webhook.id}`, { key, payload: { active: false } });
  const test409 = await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key });
  assert.equal(test409.statusCode, 409);
  assert.deepEqual(json(test409), {
    error: 'This webhook is disabled; re-enable it with PATCH {"active": true} first',
    code: 'conflict',
    webhook_id: webhook.id,
  });
});

test('an Idempotency-Key replays the creation with its secret, which is stored only encrypted', async (t) => {
  const h = await harness(t);
  const { key } = await givenCaller(h);
  const send = () =>
    call(h, 'POST', '/api/v1/webhooks', {
      key,
      headers: { 'idempotency-key': 'hook-1' },
      payload: { url: HOOK_URL, events: ['release.live'] },
    });
  const first = await send();
  const again = await send();
  assert.equal(first.statusCode, 201);
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, first.body);
  const { secret } = (json(first) as { webhook: { secret: string } }).webhook;
  const stored = await h.ctx.db.selectFrom('idempotency_keys').select('body').executeTakeFirstOrThrow();
  assert.ok(stored.body !== null && !stored.body.includes(secret.slice(6)));
  assert.equal(
    (json(await call(h, 'GET', '/api/v1/webhooks', { key })) as { webhooks: unknown[] }).webhooks.length,
    1,
  );
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
