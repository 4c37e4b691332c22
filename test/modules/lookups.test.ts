import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenCaller, givenKey, json } from '../helpers/harness.ts';

test('GET /lookups/genres lists the genre names a release may take', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { plan: 'start', scopes: ['catalog:read'] });
  const response = await call(h, 'GET', '/api/v1/lookups/genres', { key });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(typeof response.headers.etag, 'string');
  const { genres } = json(response) as { genres: string[] };
  assert.ok(genres.length >= 30);
  for (const genre of ['Pop', 'Rock', 'Hip-Hop/Rap', 'Electronic', 'Classical', 'Jazz']) {
    assert.ok(genres.includes(genre), genre);
  }
  assert.equal(new Set(genres).size, genres.length, 'no genre twice');
});

test('GET /lookups/countries lists ISO 3166-1 alpha-2 codes with English names', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { countries } = json(await call(h, 'GET', '/api/v1/lookups/countries', { key })) as {
    countries: Array<{ code: string; name: string }>;
  };
  assert.ok(countries.length >= 240);
  assert.ok(countries.every(({ code }) => /^[A-Z]{2}$/.test(code)));
  assert.deepEqual(
    countries.filter(({ code }) => ['DE', 'RU', 'US'].includes(code)),
    [
      { code: 'DE', name: 'Germany' },
      { code: 'RU', name: 'Russian Federation' },
      { code: 'US', name: 'United States of America' },
    ],
  );
});

test('GET /lookups/languages lists ISO 639-1 codes with English and native names', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { languages } = json(await call(h, 'GET', '/api/v1/lookups/languages', { key })) as {
    languages: Array<{ code: string; name: string; native_name: string }>;
  };
  assert.ok(languages.length >= 180);
  assert.ok(languages.every(({ code }) => /^[a-z]{2}$/.test(code)));
  assert.deepEqual(
    languages.find(({ code }) => code === 'ru'),
    { code: 'ru', name: 'Russian', native_name: 'Русский' },
  );
});

test('GET /lookups/contributor-roles gives canonical roles, their kind and local-language names', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { roles } = json(await call(h, 'GET', '/api/v1/lookups/contributor-roles', { key })) as {
    roles: Array<{ name: string; kind: string; local_names: string[] }>;
  };
  assert.deepEqual(
    roles.find(({ name }) => name === 'Producer'),
    { name: 'Producer', kind: 'contributor', local_names: ['Продюсер'] },
  );
  assert.deepEqual(
    roles.find(({ name }) => name === 'Lyricist'),
    { name: 'Lyricist', kind: 'writer', local_names: ['Автор слов', 'Автор текста', 'Поэт'] },
  );
  assert.ok(roles.filter(({ kind }) => kind === 'writer').length >= 2);
  const localNames = roles.flatMap(({ local_names }) => local_names.map((n) => n.toLowerCase()));
  assert.equal(new Set(localNames).size, localNames.length, 'a local name means one role only');
});

test('lookups need a key, any key: a sandbox key with one unrelated scope too', async (t) => {
  const h = await buildHarness(t);
  const { label } = await givenCaller(h);
  const paths = ['genres', 'countries', 'languages', 'contributor-roles'].map((p) => `/api/v1/lookups/${p}`);
  for (const path of paths) {
    const anonymous = await call(h, 'GET', path);
    assert.equal(anonymous.statusCode, 401, path);
    assert.deepEqual(json(anonymous), {
      error: 'A valid API key is required: send Authorization: Bearer <API_KEY>',
      code: 'unauthorized',
    });
  }
  const sandboxKey = await givenKey(h, label.id, { sandbox: true, scopes: ['links:read'] });
  for (const path of paths) {
    const response = await call(h, 'GET', path, { key: sandboxKey });
    assert.equal(response.statusCode, 200, path);
    assert.equal(response.headers['x-sandbox'], 'true');
  }
});
