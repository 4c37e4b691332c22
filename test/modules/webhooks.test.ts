import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';
import { type CreatedWebhook, givenWebhook, HOOK_URL, harness } from '../helpers/webhooks.ts';

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
