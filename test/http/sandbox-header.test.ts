import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { revokeKey } from '../../src/modules/keys/keys.service.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';

/** A key of the sandbox's shape that no label holds. */
const UNKNOWN_SANDBOX_KEY = `svc_test_${'a'.repeat(40)}`;

function outcome(response: LightMyRequestResponse) {
  return { status: response.statusCode, sandbox: response.headers['x-sandbox'], body: json(response) };
}

async function givenSandboxKey(h: Harness): Promise<{ key: string; live: string }> {
  const { label, key: live } = await givenCaller(h);
  return { key: await givenKey(h, label.id, { sandbox: true }), live };
}

test('every response to a request with a sandbox key says X-Sandbox: true, errors included', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenSandboxKey(h);
  const outcomes = [
    outcome(await call(h, 'GET', '/api/v1/nowhere', { key })),
    outcome(await call(h, 'DELETE', '/api/v1/status', { key })),
    outcome(await call(h, 'GET', '/api/v1/%zz', { key })),
    outcome(
      await call(h, 'POST', '/api/v1/artists', {
        key,
        headers: { 'content-type': 'application/json' },
        payload: '{"name": "x",',
      }),
    ),
    outcome(await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 'x'.repeat(101 * 1024) } })),
    outcome(await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 7 } })),
    outcome(await call(h, 'GET', '/api/v1/artists/999999', { key })),
  ];
  assert.deepEqual(outcomes, [
    { status: 404, sandbox: 'true', body: { error: 'Route not found', code: 'not_found' } },
    {
      status: 405,
      sandbox: 'true',
      body: { error: 'DELETE is not allowed here', code: 'method_not_allowed' },
    },
    {
      status: 400,
      sandbox: 'true',
      body: { error: 'The request path is not a valid URL path', code: 'invalid', field: 'path' },
    },
    {
      status: 400,
      sandbox: 'true',
      body: { error: 'The body is not valid JSON', code: 'invalid', field: 'body' },
    },
    {
      status: 413,
      sandbox: 'true',
      body: { error: 'The request body is larger than this endpoint accepts', code: 'payload_too_large' },
    },
    { status: 400, sandbox: 'true', body: { error: 'name must be string', code: 'invalid', field: 'name' } },
    { status: 404, sandbox: 'true', body: { error: 'Artist not found', code: 'not_found' } },
  ]);
  const served = await call(h, 'GET', '/api/v1/me', { key });
  assert.deepEqual([served.statusCode, served.headers['x-sandbox']], [200, 'true']);
});

test('an unknown or revoked sandbox-shaped key gets its 401 with X-Sandbox: true', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenSandboxKey(h);
  await revokeKey(h.ctx, key.slice(0, 'svc_test_'.length + 8));
  const unauthorized = {
    status: 401,
    sandbox: 'true',
    body: {
      error: 'A valid API key is required: send Authorization: Bearer <API_KEY>',
      code: 'unauthorized',
    },
  };
  assert.deepEqual(outcome(await call(h, 'GET', '/api/v1/me', { key })), unauthorized);
  assert.deepEqual(outcome(await call(h, 'GET', '/api/v1/me', { key: UNKNOWN_SANDBOX_KEY })), unauthorized);
});

test('a scope refusal and the HTTPS refusal behind a proxy carry X-Sandbox: true', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: '1' } });
  const { label } = await givenCaller(h);
  const key = await givenKey(h, label.id, { sandbox: true, scopes: ['links:read'] });
  const https = { 'x-forwarded-proto': 'https' };
  assert.deepEqual(outcome(await call(h, 'GET', '/api/v1/artists', { key, headers: https })), {
    status: 403,
    sandbox: 'true',
    body: {
      error: 'This key lacks the scope catalog:read',
      code: 'forbidden',
      required_scope: 'catalog:read',
    },
  });
  assert.deepEqual(outcome(await call(h, 'GET', '/api/v1/me', { key })), {
    status: 403,
    sandbox: 'true',
    body: { error: 'The API is served over HTTPS only', code: 'https_required' },
  });
});

test('a live key, a malformed key and no key get no X-Sandbox', async (t) => {
  const h = await buildHarness(t);
  const { live } = await givenSandboxKey(h);
  const responses = await Promise.all([
    call(h, 'GET', '/api/v1/me', { key: live }),
    call(h, 'GET', '/api/v1/nowhere', { key: live }),
    call(h, 'GET', '/api/v1/me', { key: 'svc_nope' }),
    call(h, 'GET', '/api/v1/me', { headers: { authorization: `Basic ${UNKNOWN_SANDBOX_KEY}` } }),
    call(h, 'GET', '/api/v1/status'),
  ]);
  assert.deepEqual(
    responses.map((response) => [response.statusCode, response.headers['x-sandbox']]),
    [
      [200, undefined],
      [404, undefined],
      [401, undefined],
      [401, undefined],
      [200, undefined],
    ],
  );
});
