import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/errors.ts';
import { revokeKey } from '../../src/modules/keys/keys.service.ts';
import { updateLabel } from '../../src/modules/labels/labels.service.ts';
import { buildHarness, call, givenCaller, givenKey, givenLabel, json } from '../helpers/harness.ts';

const UNAUTHORIZED = {
  error: 'A valid API key is required: send Authorization: Bearer <API_KEY>',
  code: 'unauthorized',
};

test('a missing, malformed, unknown or revoked key is 401 unauthorized', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const cases: Array<Record<string, string>> = [
    {},
    { authorization: key },
    { authorization: `Basic ${key}` },
    { authorization: 'Bearer ' },
    { authorization: 'Bearer svc_short' },
    { authorization: `Bearer svc_${'A'.repeat(40)}` },
    { authorization: `Bearer ${key}x` },
  ];
  for (const headers of cases) {
    const response = await call(h, 'GET', '/api/v1/me', { headers });
    assert.equal(response.statusCode, 401, JSON.stringify(headers));
    assert.deepEqual(json(response), UNAUTHORIZED);
    assert.equal(response.headers['x-ratelimit-limit'], undefined);
  }

  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 200);
  await revokeKey(h.ctx, key.slice(0, 12));
  const revoked = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(revoked.statusCode, 401);
  assert.deepEqual(json(revoked), UNAUTHORIZED);
});

test('a key without the scope gets 403 forbidden with required_scope', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { scopes: ['catalog:read'] });
  const response = await call(h, 'GET', '/api/v1/team', { key });
  assert.equal(response.statusCode, 403);
  assert.deepEqual(json(response), {
    error: 'This key lacks the scope team:read',
    code: 'forbidden',
    required_scope: 'team:read',
  });
  assert.equal(response.headers['x-ratelimit-limit'], '120');
});

test('routes for any key accept every scope set', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { scopes: ['stats:read'] });
  for (const url of ['/api/v1/me', '/api/v1/me/usage', '/api/v1/platforms']) {
    assert.equal((await call(h, 'GET', url, { key })).statusCode, 200, url);
  }
});

test('on Start a granted scope outside reading and links is 403 plan_required; a plan change applies on the next request', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'start', scopes: ['all'] });
  const denied = await call(h, 'GET', '/api/v1/team', { key });
  assert.equal(denied.statusCode, 403);
  assert.deepEqual(json(denied), {
    error: 'The team:read scope needs the Label plan or above',
    code: 'plan_required',
    required_plan: 'label',
    required_scope: 'team:read',
  });
  const me = json(await call(h, 'GET', '/api/v1/me', { key })) as { key: { scopes: string[] } };
  assert.deepEqual(me.key.scopes, ['catalog:read', 'stats:read', 'links:read', 'links:write']);

  await updateLabel(h.ctx, label.id, { plan: 'label' });
  assert.equal((await call(h, 'GET', '/api/v1/team', { key })).statusCode, 200);

  await updateLabel(h.ctx, label.id, { plan: 'start' });
  assert.equal((await call(h, 'GET', '/api/v1/team', { key })).statusCode, 403);
});

test('an allow-list admits listed IPv4 addresses, CIDR ranges and IPv6 addresses only', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const key = await givenKey(h, label.id, { allowIps: ['203.0.113.7', '198.51.100.0/24', '2001:db8::1'] });
  const from = (remoteAddress: string) => call(h, 'GET', '/api/v1/me', { key, remoteAddress });

  for (const address of ['203.0.113.7', '198.51.100.42', '2001:db8::1', '::ffff:203.0.113.7']) {
    assert.equal((await from(address)).statusCode, 200, address);
  }
  for (const address of ['203.0.113.8', '198.51.101.1', '2001:db8::2', '127.0.0.1']) {
    const response = await from(address);
    assert.equal(response.statusCode, 403, address);
    assert.deepEqual(json(response), {
      error: "The request address is outside this key's allow-list",
      code: 'ip_not_allowed',
    });
  }
});

test('60 failed authentications a minute per address, then 429 rate_limited with Retry-After', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const attacker = '192.0.2.10';
  for (let i = 0; i < 60; i++) {
    const response = await call(h, 'GET', '/api/v1/me', {
      key: `svc_${'x'.repeat(40)}`,
      remoteAddress: attacker,
    });
    assert.equal(response.statusCode, 401);
  }
  const blocked = await call(h, 'GET', '/api/v1/me', { key: 'svc_wrong', remoteAddress: attacker });
  assert.equal(blocked.statusCode, 429);
  assert.deepEqual(json(blocked), {
    error: 'Too many failed authentications from this address',
    code: 'rate_limited',
  });
  assert.equal(blocked.headers['retry-after'], '60');

  const validKey = await call(h, 'GET', '/api/v1/me', { key, remoteAddress: attacker });
  assert.equal(validKey.statusCode, 200, 'only failed attempts are limited');

  const otherAddress = await call(h, 'GET', '/api/v1/me', { key: 'svc_wrong', remoteAddress: '192.0.2.11' });
  assert.equal(otherAddress.statusCode, 401);

  h.clock.advance(30_000);
  const later = await call(h, 'GET', '/api/v1/me', { key: 'svc_wrong', remoteAddress: attacker });
  assert.equal(later.headers['retry-after'], '30');
  h.clock.advance(30_001);
  assert.equal(
    (await call(h, 'GET', '/api/v1/me', { key: 'svc_wrong', remoteAddress: attacker })).statusCode,
    401,
  );
});

test('a sandbox key works in the sandbox: X-Sandbox on every response and sandbox in /me', async (t) => {
  const h = await buildHarness(t);
  const { label } = await givenCaller(h);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true, scopes: ['catalog:read'] });
  assert.match(sandboxKey, /^svc_test_[A-Za-z0-9]{32,}$/);

  const me = await call(h, 'GET', '/api/v1/me', { key: sandboxKey });
  assert.equal(me.statusCode, 200);
  assert.equal(me.headers['x-sandbox'], 'true');
  const body = json(me) as {
    sandbox: boolean;
    key: { sandbox: boolean; prefix: string };
    label: { id: number };
  };
  assert.equal(body.sandbox, true);
  assert.equal(body.key.sandbox, true);
  assert.equal(body.label.id, label.id);
  assert.ok(sandboxKey.startsWith(body.key.prefix));

  const forbidden = await call(h, 'GET', '/api/v1/team', { key: sandboxKey });
  assert.equal(forbidden.statusCode, 403);
  assert.equal(forbidden.headers['x-sandbox'], 'true');

  const liveKey = await givenKey(h, label.id);
  const live = await call(h, 'GET', '/api/v1/me', { key: liveKey });
  assert.equal(live.headers['x-sandbox'], undefined);
  assert.equal((json(live) as { sandbox?: boolean }).sandbox, undefined);
});

test('behind a proxy the client address is the one the proxy appended, not one the client sent', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: '10.0.0.2' } });
  const label = await givenLabel(h);
  const key = await givenKey(h, label.id, { allowIps: ['203.0.113.7'] });
  const viaProxy = (forwardedFor: string) =>
    call(h, 'GET', '/api/v1/me', {
      key,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': forwardedFor },
      remoteAddress: '10.0.0.2',
    });
  assert.equal((await viaProxy('203.0.113.7')).statusCode, 200);
  const spoofed = await viaProxy('203.0.113.7, 198.51.100.9');
  assert.equal(spoofed.statusCode, 403);
  assert.equal((json(spoofed) as { code: string }).code, 'ip_not_allowed');
});

test('allow-lists take plain dotted IPv4, IPv6 and CIDR only, and match IPv4-mapped forms', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  for (const entry of ['010.0.0.1', '10.1', '167772161', '0x0a000001', '10.0.0.0/33', 'example.com']) {
    await assert.rejects(givenKey(h, label.id, { allowIps: [entry] }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.deepEqual(error.body(), {
        error: `"${entry}" is not an IPv4 address, IPv6 address or CIDR range`,
        code: 'invalid',
        field: 'allow_ip',
      });
      return true;
    });
  }
  const key = await givenKey(h, label.id, { allowIps: ['::ffff:10.0.0.0/104'] });
  assert.equal((await call(h, 'GET', '/api/v1/me', { key, remoteAddress: '10.20.30.40' })).statusCode, 200);
  assert.equal((await call(h, 'GET', '/api/v1/me', { key, remoteAddress: '11.0.0.1' })).statusCode, 403);
});

test('failed authentications from one IPv6 /64 count together', async (t) => {
  const h = await buildHarness(t);
  for (let i = 1; i <= 60; i++) {
    const response = await call(h, 'GET', '/api/v1/me', {
      key: 'svc_wrong',
      remoteAddress: `2001:db8:1:2::${i.toString(16)}`,
    });
    assert.equal(response.statusCode, 401);
  }
  const sameNetwork = await call(h, 'GET', '/api/v1/me', {
    key: 'svc_wrong',
    remoteAddress: '2001:db8:1:2:ffff::1',
  });
  assert.equal(sameNetwork.statusCode, 429);
  const otherNetwork = await call(h, 'GET', '/api/v1/me', {
    key: 'svc_wrong',
    remoteAddress: '2001:db8:1:3::1',
  });
  assert.equal(otherNetwork.statusCode, 401);
});
