import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

/** `depth` arrays, one inside the other: `[[[…]]]`. */
function nestedArrays(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

test('a path segment longer than 100 characters is 400 invalid path, not a 500', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const expected = {
    error: 'A path segment is longer than any id, code or name of ours',
    code: 'invalid',
    field: 'path',
  };
  for (const url of [
    `/api/v1/releases/${'a'.repeat(5000)}`,
    `/api/v1/releases/1/tracks/${'1'.repeat(101)}`,
    `/l/${'a'.repeat(101)}`,
  ]) {
    const response = await call(h, 'GET', url, { key });
    assert.equal(response.statusCode, 400, url);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(json(response), expected, url);
  }
});

test('100 KB of nested arrays in a JSON body is 400 invalid body, not a stack overflow', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const inField = await call(h, 'POST', '/api/v1/artists', {
    key,
    headers: JSON_TYPE,
    payload: `{"name":${nestedArrays(50_000)}}`,
  });
  assert.equal(inField.statusCode, 400);
  assert.deepEqual(json(inField), {
    error: 'body is nested deeper than 32 levels',
    code: 'invalid',
    field: 'body',
  });

  const whole = await call(h, 'PATCH', '/api/v1/releases/1', {
    key,
    headers: JSON_TYPE,
    payload: nestedArrays(50_000),
  });
  assert.equal(whole.statusCode, 400);
  assert.deepEqual(json(whole), {
    error: 'body is nested deeper than 32 levels',
    code: 'invalid',
    field: 'body',
  });
});

test('100 KB of unclosed [ is 400 invalid body: not JSON', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/artists', {
    key,
    headers: JSON_TYPE,
    payload: '['.repeat(100_000),
  });
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), { error: 'The body is not valid JSON', code: 'invalid', field: 'body' });
});

test('nesting up to 32 levels reaches validation, and a NUL character deep inside is still named', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const shallowEnough = await call(h, 'POST', '/api/v1/artists', {
    key,
    headers: JSON_TYPE,
    payload: `{"name":${nestedArrays(31)}}`,
  });
  assert.equal(shallowEnough.statusCode, 400);
  assert.deepEqual(json(shallowEnough), { error: 'name must be string', code: 'invalid', field: 'name' });

  const withNul = await call(h, 'POST', '/api/v1/artists', {
    key,
    headers: JSON_TYPE,
    payload: JSON.stringify({ name: 'Mira', links: [[['ok', 'bad\u0000']]] }),
  });
  assert.equal(withNul.statusCode, 400);
  assert.deepEqual(json(withNul), {
    error: 'links/0/0/1 must not contain the NUL character',
    code: 'invalid',
    field: 'links/0/0/1',
  });
});

test('an event id past 32 bits is 400 invalid, not a PostgreSQL range error', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const feed = await call(h, 'GET', '/api/v1/events?after=2147483648', { key });
  assert.equal(feed.statusCode, 400);
  assert.deepEqual(json(feed), { error: 'after must be <= 2147483647', code: 'invalid', field: 'after' });

  const redeliver = await call(h, 'POST', '/api/v1/webhooks/1/redeliver', {
    key,
    headers: JSON_TYPE,
    payload: '{"event_id":2147483648}',
  });
  assert.equal(redeliver.statusCode, 400);
  assert.deepEqual(json(redeliver), {
    error: 'event_id must be <= 2147483647',
    code: 'invalid',
    field: 'event_id',
  });
});

test('1e999 or Infinity in a path or query is 400 invalid, not Infinity passed to the database', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const cases = [
    ['/api/v1/releases/1e999', 'id'],
    ['/api/v1/releases/1/tracks/Infinity/lyrics', 'trackId'],
    ['/api/v1/artists/-1e999', 'id'],
    ['/api/v1/releases?artist_id=1e999', 'artist_id'],
    ['/api/v1/releases?per_page=Infinity', 'per_page'],
  ];
  for (const [url, field] of cases) {
    const response = await call(h, 'GET', String(url), { key });
    assert.equal(response.statusCode, 400, url);
    assert.deepEqual(
      json(response),
      { error: `${field} must be a finite number`, code: 'invalid', field },
      url,
    );
  }
});

test('deep JSON on a route without a body schema is 400 before the idempotency hash reads it', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  for (const url of ['/api/v1/webhooks/1/test', '/api/v1/webhooks/1/rotate-secret']) {
    const response = await call(h, 'POST', url, {
      key,
      headers: { ...JSON_TYPE, 'idempotency-key': 'deep-body' },
      payload: nestedArrays(50_000),
    });
    assert.equal(response.statusCode, 400, url);
    assert.deepEqual(json(response), {
      error: 'body is nested deeper than 32 levels',
      code: 'invalid',
      field: 'body',
    });
  }
});
