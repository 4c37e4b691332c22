import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertStandardHeaders(headers: Record<string, unknown>): void {
  assert.equal(headers['x-api-version'], '1.1.0');
  assert.equal(headers['cache-control'], 'no-store');
}

test('every response carries X-API-Version and Cache-Control: no-store, errors included', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const responses = await Promise.all([
    call(h, 'GET', '/api/v1/status'),
    call(h, 'GET', '/api/v1/me', { key }),
    call(h, 'GET', '/api/v1/me'),
    call(h, 'GET', '/api/v1/nowhere'),
    call(h, 'DELETE', '/api/v1/me', { key }),
    call(h, 'GET', '/api/v1/openapi.json'),
  ]);
  assert.deepEqual(
    responses.map((r) => r.statusCode),
    [200, 200, 401, 404, 405, 200],
  );
  for (const response of responses) assertStandardHeaders(response.headers);
});

test('an unknown route is 404 not_found in the error shape', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/nowhere');
  assert.equal(response.statusCode, 404);
  assert.deepEqual(json(response), { error: 'Route not found', code: 'not_found' });
});

test('a wrong method is 405 method_not_allowed with Allow', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'POST', '/api/v1/status', { payload: {} });
  assert.equal(response.statusCode, 405);
  assert.equal(response.headers.allow, 'GET');
  assert.deepEqual(json(response), { error: 'POST is not allowed here', code: 'method_not_allowed' });
});

test('date-times have the YYYY-MM-DDTHH:MM:SS.mmmZ shape', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const me = json(await call(h, 'GET', '/api/v1/me', { key })) as { key: { created_at: string } };
  const status = json(await call(h, 'GET', '/api/v1/status')) as { time: string };
  assert.match(me.key.created_at, ISO_MILLIS);
  assert.match(status.time, ISO_MILLIS);
});

test('GET 200 carries an ETag; If-None-Match with it gives 304 with no body', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const first = await call(h, 'GET', '/api/v1/platforms', { key });
  assert.equal(first.statusCode, 200);
  const etag = first.headers.etag;
  assert.equal(typeof etag, 'string');
  assert.match(String(etag), /^"[A-Za-z0-9_-]+"$/);

  const cached = await call(h, 'GET', '/api/v1/platforms', {
    key,
    headers: { 'if-none-match': String(etag) },
  });
  assert.equal(cached.statusCode, 304);
  assert.equal(cached.body, '');
  assert.equal(cached.headers.etag, etag);
  assertStandardHeaders(cached.headers);
  assert.equal(cached.headers['x-ratelimit-limit'], '120');

  const stale = await call(h, 'GET', '/api/v1/platforms', {
    key,
    headers: { 'if-none-match': '"something-else"' },
  });
  assert.equal(stale.statusCode, 200);
  assert.deepEqual(json(stale), json(first));

  const weak = await call(h, 'GET', '/api/v1/platforms', { key, headers: { 'if-none-match': `W/${etag}` } });
  assert.equal(weak.statusCode, 304);

  const head = await call(h, 'HEAD', '/api/v1/platforms', { key });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers.etag, etag);
  const headCached = await call(h, 'HEAD', '/api/v1/platforms', {
    key,
    headers: { 'if-none-match': String(etag) },
  });
  assert.equal(headCached.statusCode, 304);
});

test('error responses carry no ETag', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/me');
  assert.equal(response.statusCode, 401);
  assert.equal(response.headers.etag, undefined);
});

/** Routes that exercise body handling and faults; the platform itself has no JSON-body route yet. */
function withProbeRoutes(app: FastifyInstance): void {
  app.post(
    '/api/v1/probe',
    {
      config: { access: 'catalog:write' },
      schema: {
        body: Type.Object({
          name: Type.String({ minLength: 1 }),
          count: Type.Optional(Type.Integer({ minimum: 1 })),
          nested: Type.Optional(Type.Object({ url: Type.String({ format: 'uri' }) })),
        }),
      },
    },
    async (request) => ({ ok: true, echo: request.body }),
  );
  app.get('/api/v1/probe/fault', { config: { access: 'catalog:read' } }, async () => {
    throw new Error('secret database password leaked in stack');
  });
}

test('malformed JSON is 400 invalid with field body', async (t) => {
  const h = await buildHarness(t, { extend: withProbeRoutes });
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/probe', {
    key,
    headers: { 'content-type': 'application/json' },
    payload: '{"name": "x",',
  });
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), { error: 'The body is not valid JSON', code: 'invalid', field: 'body' });
});

test('a schema violation is 400 invalid naming the field', async (t) => {
  const h = await buildHarness(t, { extend: withProbeRoutes });
  const { key } = await givenCaller(h);
  const missing = await call(h, 'POST', '/api/v1/probe', { key, payload: { count: 2 } });
  assert.equal(missing.statusCode, 400);
  assert.deepEqual(json(missing), {
    error: "name must have required property 'name'",
    code: 'invalid',
    field: 'name',
  });

  const wrongType = await call(h, 'POST', '/api/v1/probe', { key, payload: { name: 'a', count: 'many' } });
  assert.equal(wrongType.statusCode, 400);
  assert.deepEqual(json(wrongType), { error: 'count must be integer', code: 'invalid', field: 'count' });

  const nested = await call(h, 'POST', '/api/v1/probe', {
    key,
    payload: { name: 'a', nested: { url: 'nope' } },
  });
  assert.equal(nested.statusCode, 400);
  assert.equal((json(nested) as { field: string }).field, 'nested.url');
});

test('a JSON body over 100 KB is 413 payload_too_large', async (t) => {
  const h = await buildHarness(t, { extend: withProbeRoutes });
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/probe', { key, payload: { name: 'x'.repeat(101 * 1024) } });
  assert.equal(response.statusCode, 413);
  assert.deepEqual(json(response), {
    error: 'The request body is larger than this endpoint accepts',
    code: 'payload_too_large',
  });
  const fits = await call(h, 'POST', '/api/v1/probe', { key, payload: { name: 'x'.repeat(99 * 1024) } });
  assert.equal(fits.statusCode, 200);
});

test('an unsupported content type is 415 in the error shape', async (t) => {
  const h = await buildHarness(t, { extend: withProbeRoutes });
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/probe', {
    key,
    headers: { 'content-type': 'text/csv' },
    payload: 'a,b',
  });
  assert.equal(response.statusCode, 415);
  assert.equal((json(response) as { code: string }).code, 'unsupported_media_type');
});

test('an unexpected fault is 500 internal without internals', async (t) => {
  const h = await buildHarness(t, { extend: withProbeRoutes });
  const { key } = await givenCaller(h);
  const response = await call(h, 'GET', '/api/v1/probe/fault', { key });
  assert.equal(response.statusCode, 500);
  assert.deepEqual(json(response), { error: 'Internal error', code: 'internal' });
  assert.doesNotMatch(response.body, /secret|stack|at /);
  assertStandardHeaders(response.headers);
});

test('behind a proxy, a request not forwarded as https is 403 https_required before the key is looked at', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: '1' } });
  const { key } = await givenCaller(h);
  const plain = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(plain.statusCode, 403);
  assert.deepEqual(json(plain), { error: 'The API is served over HTTPS only', code: 'https_required' });
  assert.equal(plain.headers['x-ratelimit-limit'], undefined);

  const http = await call(h, 'GET', '/api/v1/me', { key, headers: { 'x-forwarded-proto': 'http' } });
  assert.equal(http.statusCode, 403);

  const badKey = await call(h, 'GET', '/api/v1/me', {
    key: 'svc_nope',
    headers: { 'x-forwarded-proto': 'http' },
  });
  assert.equal((json(badKey) as { code: string }).code, 'https_required');

  const https = await call(h, 'GET', '/api/v1/me', { key, headers: { 'x-forwarded-proto': 'https' } });
  assert.equal(https.statusCode, 200);
});

test('every response has a request id', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/status');
  assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('a path that is not valid URL encoding is 400 invalid with the standard headers', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/%zz');
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), {
    error: 'The request path is not a valid URL path',
    code: 'invalid',
    field: 'path',
  });
  assertStandardHeaders(response.headers);
});

test('the reference page assets are no-store too, and a missing asset is 404', async (t) => {
  const h = await buildHarness(t);
  const page = await call(h, 'GET', '/api/v1/docs/static/swagger-ui.css');
  assert.equal(page.statusCode, 200);
  assertStandardHeaders(page.headers);
  const missing = await call(h, 'GET', '/api/v1/docs/static/nothing-here.css');
  assert.equal(missing.statusCode, 404);
  assert.equal((json(missing) as { code: string }).code, 'not_found');
});
