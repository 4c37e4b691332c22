// Retries of 429 and 503 against a scripted stub server, where a real server would make the test wait
// for its one-minute rate window (flow.test.ts has the real 429 thrown at once): the client waits
// Retry-After, sends the same request again (the same Idempotency-Key), and gives up after `attempts`.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { createLabeldeskClient, LabeldeskApiError, type RetryOptions } from '../src/index.ts';

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/** A plain HTTP server that answers the scripted answers in turn (the last one from then on). */
async function stub(t: TestContext, answers: Answer[]) {
  const seen: Seen[] = [];
  const server = createServer((request, response: ServerResponse) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({ method: request.method ?? '', headers: request.headers, body, at: Date.now() });
      const answer = answers[Math.min(seen.length, answers.length) - 1] as Answer;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, seen };
}

const RATE_LIMITED = { error: 'Too many requests', code: 'rate_limited' };
const UNAVAILABLE = { error: 'The rate limiter is unreachable', code: 'unavailable' };
const ARTIST = { artist: { id: 7, name: 'Mira Vale' } };

function clientOf(origin: string, retry?: RetryOptions) {
  return createLabeldeskClient({ baseUrl: origin, apiKey: 'svc_test', ...(retry && { retry }) });
}

test('a 429 is retried after its Retry-After, with the same Idempotency-Key, and then succeeds', async (t) => {
  const server = await stub(t, [
    { status: 429, headers: { 'retry-after': '1' }, body: RATE_LIMITED },
    { status: 201, body: ARTIST },
  ]);
  const { data } = await clientOf(server.origin).POST('/api/v1/artists', { body: { name: 'Mira Vale' } });
  assert.deepEqual(data, ARTIST);
  const [first, second] = server.seen;
  assert.ok(first && second);
  assert.ok(second.at - first.at >= 950, `waited ${second.at - first.at} ms`);
  assert.match(String(first.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
  assert.equal(second.headers['idempotency-key'], first.headers['idempotency-key']);
  assert.deepEqual([first.body, second.body], ['{"name":"Mira Vale"}', '{"name":"Mira Vale"}']);
  assert.equal(second.headers.authorization, 'Bearer svc_test');
});

test('a 503 without Retry-After is retried after a short backoff', async (t) => {
  const server = await stub(t, [
    { status: 503, body: UNAVAILABLE },
    { status: 200, body: ARTIST },
  ]);
  const { data } = await clientOf(server.origin).GET('/api/v1/artists/{id}', { params: { path: { id: 7 } } });
  assert.deepEqual(data, ARTIST);
  assert.equal(server.seen.length, 2);
});

test('retries are bounded: after `attempts` the 429 is thrown as a LabeldeskApiError', async (t) => {
  const server = await stub(t, [{ status: 429, headers: { 'retry-after': '0' }, body: RATE_LIMITED }]);
  const call = clientOf(server.origin, { attempts: 3 }).GET('/api/v1/me');
  await assert.rejects(call, (error) => {
    assert.ok(error instanceof LabeldeskApiError);
    assert.deepEqual(
      { status: error.status, code: error.code, retryAfter: error.retryAfter, message: error.message },
      { status: 429, code: 'rate_limited', retryAfter: 0, message: 'Too many requests' },
    );
    return true;
  });
  assert.equal(server.seen.length, 3);
});

test('a Retry-After longer than maxDelaySeconds is not waited for', async (t) => {
  const server = await stub(t, [{ status: 503, headers: { 'retry-after': '120' }, body: UNAVAILABLE }]);
  const started = Date.now();
  await assert.rejects(clientOf(server.origin).GET('/api/v1/me'), { name: 'LabeldeskApiError', status: 503 });
  assert.equal(server.seen.length, 1);
  assert.ok(Date.now() - started < 1000);
});

test('other errors are not retried, and a body that is not JSON still makes a LabeldeskApiError', async (t) => {
  const server = await stub(t, [{ status: 500, body: { error: 'Internal error', code: 'internal' } }]);
  await assert.rejects(clientOf(server.origin).GET('/api/v1/me'), { status: 500, code: 'internal' });
  assert.equal(server.seen.length, 1);

  const client = createLabeldeskClient({
    baseUrl: 'https://labeldesk.test',
    apiKey: 'svc_test',
    fetch: async () => new Response('<html>Bad gateway</html>', { status: 502 }),
  });
  await assert.rejects(client.GET('/api/v1/me'), {
    name: 'LabeldeskApiError',
    status: 502,
    code: 'unknown',
    message: '<html>Bad gateway</html>',
  });
});
