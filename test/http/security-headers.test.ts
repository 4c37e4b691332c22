import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { generate } from 'selfsigned';
import { buildApp } from '../../src/app.ts';
import { MemoryRateLimiter } from '../../src/http/rate-limiter.ts';
import { BASE_URL, buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

const HSTS = 'max-age=31536000';
const VIA_PROXY = { 'x-forwarded-proto': 'https' };
const BASE_ORIGIN = new URL(BASE_URL).origin;

async function givenLink(h: Harness, key: string, releaseDate: string): Promise<string> {
  const response = await call(h, 'POST', '/api/v1/smart-links', {
    key,
    payload: {
      title: 'Night Drive',
      artist_name: 'Mira Vale',
      release_date: releaseDate,
      targets: [{ platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' }],
    },
  });
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { smart_link: { code: string } }).smart_link.code;
}

/** The CSP source that allows the page's one inline style sheet. */
function styleHash(html: string): string {
  const css = /<style>([\s\S]*)<\/style>/.exec(html)?.[1];
  assert.ok(css !== undefined, 'the page has an inline style sheet');
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

function pageHeaders(response: LightMyRequestResponse) {
  return {
    status: response.statusCode,
    type: response.headers['content-type'],
    csp: response.headers['content-security-policy'],
    nosniff: response.headers['x-content-type-options'],
    referrer: response.headers['referrer-policy'],
  };
}

function linkPagePolicy(html: string, formAction: string): string {
  return `default-src 'none'; style-src ${styleHash(html)}; img-src data:; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`;
}

test('smart-link pages run no script, allow their own style by hash, and refuse framing', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const out = await givenLink(h, key, '2026-02-20');
  const ahead = await givenLink(h, key, '2026-04-10');
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const responses = [
    await call(h, 'GET', `/l/${out}`),
    await call(h, 'GET', `/l/${ahead}`),
    await call(h, 'POST', `/l/${ahead}/presave`, { headers: form, payload: 'email=nope' }),
    await call(h, 'POST', `/l/${ahead}/presave`, { headers: form, payload: 'email=fan@example.com' }),
    await call(h, 'POST', `/l/${out}/presave`, { headers: form, payload: 'email=fan@example.com' }),
  ];
  const page = (status: number, response: LightMyRequestResponse, formAction: string) => ({
    status,
    type: 'text/html; charset=utf-8',
    csp: linkPagePolicy(response.body, formAction),
    nosniff: 'nosniff',
    referrer: 'strict-origin-when-cross-origin',
  });
  const [listen, presave, invalid, signedUp, closed] = responses as [
    LightMyRequestResponse,
    LightMyRequestResponse,
    LightMyRequestResponse,
    LightMyRequestResponse,
    LightMyRequestResponse,
  ];
  assert.deepEqual(responses.map(pageHeaders), [
    page(200, listen, "'none'"),
    page(200, presave, "'self'"),
    page(400, invalid, "'self'"),
    page(200, signedUp, "'none'"),
    page(409, closed, "'none'"),
  ]);
  for (const response of responses) assert.doesNotMatch(response.body, /<script/i);
});

test("a smart link's 404 pages carry the same headers", async (t) => {
  const h = await buildHarness(t);
  const responses = await Promise.all([
    call(h, 'GET', '/l/no-such-link'),
    call(h, 'GET', '/l/no-such-link/go/spotify'),
    call(h, 'GET', '/l/no-such-link/presave'),
    call(h, 'GET', '/l/%E2%9C%93'),
  ]);
  const [first] = responses;
  assert.ok(first);
  const notFound = {
    status: 404,
    type: 'text/html; charset=utf-8',
    csp: `default-src 'none'; style-src ${styleHash(first.body)}; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
    nosniff: 'nosniff',
    referrer: 'strict-origin-when-cross-origin',
  };
  assert.deepEqual(responses.map(pageHeaders), [notFound, notFound, notFound, notFound]);
});

test('the reference page relaxes only what Swagger UI needs: its own files, data: images, the API', async (t) => {
  const h = await buildHarness(t);
  const policy = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${BASE_ORIGIN}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
  const page = await call(h, 'GET', '/api/v1/docs');
  assert.deepEqual(pageHeaders(page), {
    status: 200,
    type: 'text/html; charset=utf-8',
    csp: policy,
    nosniff: 'nosniff',
    referrer: 'no-referrer',
  });
  assert.doesNotMatch(page.body, /<script>|<script(?![^>]*\bsrc=)[^>]*>/i, 'no inline script');
  const initializer = await call(h, 'GET', '/api/v1/docs/static/swagger-initializer.js');
  assert.equal(initializer.statusCode, 200);
  assert.equal(initializer.headers['content-security-policy'], policy);
});

test('JSON responses carry nosniff and no page policy', async (t) => {
  const h = await buildHarness(t);
  const responses = await Promise.all([call(h, 'GET', '/api/v1/status'), call(h, 'GET', '/api/v1/me')]);
  assert.deepEqual(
    responses.map((r) => [
      r.statusCode,
      r.headers['x-content-type-options'],
      r.headers['content-security-policy'],
    ]),
    [
      [200, 'nosniff', undefined],
      [401, 'nosniff', undefined],
    ],
  );
});

test('behind a proxy, HTTPS responses carry Strict-Transport-Security, errors and pages included', async (t) => {
  const h = await buildHarness(t, { env: { TRUST_PROXY: '1' } });
  const { key } = await givenCaller(h);
  const responses = await Promise.all([
    call(h, 'GET', '/api/v1/status', { headers: VIA_PROXY }),
    call(h, 'GET', '/api/v1/me', { key, headers: VIA_PROXY }),
    call(h, 'GET', '/api/v1/me', { headers: VIA_PROXY }),
    call(h, 'GET', '/api/v1/nowhere', { headers: VIA_PROXY }),
    call(h, 'GET', '/api/v1/%zz', { headers: VIA_PROXY }),
    call(h, 'GET', '/l/no-such-link', { headers: VIA_PROXY }),
    call(h, 'GET', '/api/v1/docs', { headers: VIA_PROXY }),
  ]);
  assert.deepEqual(
    responses.map((r) => [r.statusCode, r.headers['strict-transport-security']]),
    [
      [200, HSTS],
      [200, HSTS],
      [401, HSTS],
      [404, HSTS],
      [400, HSTS],
      [404, HSTS],
      [200, HSTS],
    ],
  );
  const plain = await Promise.all([
    call(h, 'GET', '/api/v1/status'),
    call(h, 'GET', '/api/v1/status', { headers: { 'x-forwarded-proto': 'http' } }),
    call(h, 'GET', '/api/v1/status', { headers: VIA_PROXY, remoteAddress: '203.0.113.9' }),
  ]);
  assert.deepEqual(
    plain.map((r) => [r.statusCode, r.headers['strict-transport-security']]),
    [
      [403, undefined],
      [403, undefined],
      [403, undefined],
    ],
  );
});

test('a plain request to a server without a proxy carries no Strict-Transport-Security', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/status', { headers: VIA_PROXY });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['strict-transport-security'], undefined);
});

/** GET over real TLS to a listening app, trusting only `ca`. */
function getOverTls(port: number, path: string, ca: string): Promise<{ status: number; hsts: unknown }> {
  return new Promise((resolve, reject) => {
    httpsGet({ hostname: 'localhost', family: 4, port, path, ca, agent: false }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, hsts: response.headers['strict-transport-security'] }),
      );
    }).on('error', reject);
  });
}

test('over its own TLS the server sends Strict-Transport-Security on every response', async (t) => {
  const h = await buildHarness(t);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  });
  const app = await buildApp(h.ctx, {
    limiter: new MemoryRateLimiter(),
    https: { key: pems.private, cert: pems.cert },
  });
  t.after(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const replies = await Promise.all(
    ['/api/v1/status', '/api/v1/me', '/api/v1/nowhere', '/l/no-such-link'].map((path) =>
      getOverTls(port, path, pems.cert),
    ),
  );
  assert.deepEqual(replies, [
    { status: 200, hsts: HSTS },
    { status: 401, hsts: HSTS },
    { status: 404, hsts: HSTS },
    { status: 404, hsts: HSTS },
  ]);
});
