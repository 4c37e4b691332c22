import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenKey, givenLabel, type Harness, json } from '../helpers/harness.ts';

const PROXIES = '127.0.0.1,10.0.0.0/8,fd00::/8';
const HTTPS_REQUIRED = { error: 'The API is served over HTTPS only', code: 'https_required' };

function from(h: Harness, peer: string, headers: Record<string, string>, key?: string) {
  return call(h, 'GET', key ? '/api/v1/me' : '/api/v1/status', {
    remoteAddress: peer,
    headers,
    ...(key && { key }),
  });
}

test("a trusted proxy's X-Forwarded-For is the client address key allow-lists see", async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: PROXIES } });
  const label = await givenLabel(h);
  const key = await givenKey(h, label.id, { allowIps: ['203.0.113.7'] });
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' };
  const statuses = [
    (await from(h, '10.0.0.2', forwarded, key)).statusCode,
    (await from(h, '::ffff:10.9.8.7', forwarded, key)).statusCode,
    (await from(h, 'fd00::1', forwarded, key)).statusCode,
    (await from(h, '127.0.0.1', forwarded, key)).statusCode,
    (await from(h, '10.0.0.2', { 'x-forwarded-proto': 'https' }, key)).statusCode,
  ];
  assert.deepEqual(statuses, [200, 200, 200, 200, 403]);
});

test("a trusted proxy's X-Forwarded-For is the address per-address limits count", async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: PROXIES } });
  const client = (address: string) =>
    from(h, '10.0.0.2', { 'x-forwarded-proto': 'https', 'x-forwarded-for': address });
  for (let i = 0; i < 30; i++) assert.equal((await client('198.51.100.1')).statusCode, 200);
  const limited = await client('198.51.100.1');
  assert.equal(limited.statusCode, 429);
  assert.deepEqual(json(limited), { error: 'Too many requests', code: 'rate_limited' });
  assert.equal((await client('198.51.100.2')).statusCode, 200, 'another client behind the same proxy');
});

test('only trusted hops are believed: the client is the last address no trusted proxy holds', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: PROXIES } });
  const label = await givenLabel(h);
  const key = await givenKey(h, label.id, { allowIps: ['203.0.113.7'] });
  const chain = (forwardedFor: string) =>
    from(h, '127.0.0.1', { 'x-forwarded-proto': 'https', 'x-forwarded-for': forwardedFor }, key);
  // Two proxies of ours (10.0.0.5 then 127.0.0.1) in front of the client.
  assert.equal((await chain('203.0.113.7, 10.0.0.5')).statusCode, 200);
  // The client wrote the allowed address itself, before its own: it is not believed.
  const spoofed = await chain('203.0.113.7, 198.51.100.9');
  assert.equal(spoofed.statusCode, 403);
  assert.equal((json(spoofed) as { code: string }).code, 'ip_not_allowed');
});

test('a peer outside TRUST_PROXY is a direct client: its X-Forwarded-Proto and -For are ignored', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: PROXIES } });
  const label = await givenLabel(h);
  const key = await givenKey(h, label.id, { allowIps: ['10.0.0.2'] });
  const claims = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.0.0.2' };
  for (const peer of ['203.0.113.50', '11.0.0.1', '::ffff:203.0.113.50', '2001:db8::1', 'fe00::1']) {
    for (const response of [await from(h, peer, claims), await from(h, peer, claims, key)]) {
      assert.deepEqual(
        {
          peer,
          status: response.statusCode,
          body: json(response),
          hsts: response.headers['strict-transport-security'],
        },
        { peer, status: 403, body: HTTPS_REQUIRED, hsts: undefined },
      );
    }
  }
});

test('TRUST_PROXY=1 trusts the loopback addresses only', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: '1' } });
  const https = { 'x-forwarded-proto': 'https' };
  const statuses = [];
  for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '10.0.0.2', '192.0.2.1']) {
    statuses.push([peer, (await from(h, peer, https)).statusCode]);
  }
  assert.deepEqual(statuses, [
    ['127.0.0.1', 200],
    ['127.8.9.10', 200],
    ['::1', 200],
    ['::ffff:127.0.0.1', 200],
    ['10.0.0.2', 403],
    ['192.0.2.1', 403],
  ]);
});
