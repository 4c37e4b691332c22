import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

interface Credits {
  ok: true;
  contributors: Array<{ name: string; role: string }>;
  writers: Array<{ name: string; roles: string[] }>;
  featured: Array<{ name: string }>;
}

async function setup(t: TestContext) {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { type: 'album' });
  const track = await givenTrack(h, label.id, release.id);
  const path = `/api/v1/releases/${release.id}/tracks/${track.id}/credits`;
  return { h, label, key, release, track, path };
}

async function put(h: Harness, key: string, path: string, payload: object): Promise<Credits> {
  const response = await call(h, 'PUT', path, { key, payload });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as Credits;
}

function assertInvalid(response: LightMyRequestResponse, field: string): void {
  assert.equal(response.statusCode, 400, response.body);
  const body = json(response) as { code: string; field: string };
  assert.deepEqual({ code: body.code, field: body.field }, { code: 'invalid', field });
}

test('a new track has empty credit lists', async (t) => {
  const { h, key, path } = await setup(t);
  const response = await call(h, 'GET', path, { key });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), { ok: true, contributors: [], writers: [], featured: [] });
});

test('PUT replaces the lists sent, keeps the others, and stores local role names by canonical name', async (t) => {
  const { h, key, path, release, track } = await setup(t);
  const all = await put(h, key, path, {
    contributors: [
      { name: 'Анна Смирнова', role: 'ВОКАЛИСТ' },
      { name: ' Ivan Petrov ', role: 'Звукорежиссёр мастеринга' },
      { name: 'Kato', role: 'mixing engineer' },
    ],
    writers: [{ name: 'Пётр Иванов', roles: ['Автор слов', 'композитор', 'Lyricist'] }],
    featured: [{ name: 'Kato' }],
  });
  assert.deepEqual(all, {
    ok: true,
    contributors: [
      { name: 'Анна Смирнова', role: 'Vocalist' },
      { name: 'Ivan Petrov', role: 'Mastering Engineer' },
      { name: 'Kato', role: 'Mixing Engineer' },
    ],
    writers: [{ name: 'Пётр Иванов', roles: ['Lyricist', 'Composer'] }],
    featured: [{ name: 'Kato' }],
  });
  const partial = await put(h, key, path, { featured: [] });
  assert.deepEqual(partial, { ...all, featured: [] });
  assert.deepEqual(json(await call(h, 'GET', path, { key })), partial);
  const card = json(await call(h, 'GET', `/api/v1/releases/${release.id}/tracks/${track.id}`, { key })) as {
    track: Pick<Credits, 'contributors' | 'writers' | 'featured'>;
  };
  assert.deepEqual(
    { contributors: card.track.contributors, writers: card.track.writers, featured: card.track.featured },
    { contributors: partial.contributors, writers: partial.writers, featured: [] },
  );
});

test('unknown roles, roles of the other kind, empty names and empty bodies are 400 with the field', async (t) => {
  const { h, key, path } = await setup(t);
  const cases: Array<[object, string]> = [
    [{ contributors: [{ name: 'A', role: 'Cowbell Maestro' }] }, 'contributors'],
    [{ contributors: [{ name: 'A', role: 'Lyricist' }] }, 'contributors'],
    [{ contributors: [{ name: '  ', role: 'Producer' }] }, 'contributors'],
    [{ writers: [{ name: 'A', roles: ['Composer', 'Продюсер'] }] }, 'writers'],
    [{ writers: [{ name: 'A', roles: ['Poet Laureate'] }] }, 'writers'],
    [{ writers: [{ name: 'A', roles: [] }] }, 'writers.0.roles'],
    [{ featured: [{ name: ' ' }] }, 'featured'],
    [{ contributors: [{ name: 'A' }] }, 'contributors.0.role'],
    [{}, 'contributors'],
    [{ producers: [] }, 'producers'],
  ];
  for (const [payload, field] of cases) assertInvalid(await call(h, 'PUT', path, { key, payload }), field);
  assert.deepEqual(json(await call(h, 'GET', path, { key })), {
    ok: true,
    contributors: [],
    writers: [],
    featured: [],
  });
});

test('credits change while draft or waiting for moderation; 404 across labels; scopes', async (t) => {
  const { h, key, path, label, release } = await setup(t);
  h.clock.advance(4000);
  await put(h, key, path, { contributors: [{ name: 'A', role: 'Producer' }] });
  const touched = await h.ctx.db
    .selectFrom('releases')
    .select('updated_at')
    .where('id', '=', release.id)
    .executeTakeFirstOrThrow();
  assert.equal(touched.updated_at, '2026-03-02T10:00:04.000Z');
  for (const [status, review, expected] of [
    ['submitting', 'pending', 200],
    ['live', 'approved', 409],
  ] as const) {
    const other = await givenRelease(h, label.id, {
      artist_id: release.artist_id,
      status,
      review_status: review,
    });
    const track = await givenTrack(h, label.id, other.id);
    const response = await call(h, 'PUT', `/api/v1/releases/${other.id}/tracks/${track.id}/credits`, {
      key,
      payload: { featured: [{ name: 'Guest' }] },
    });
    assert.equal(response.statusCode, expected, status);
  }
  const stranger = await givenCaller(h);
  assert.equal((await call(h, 'GET', path, { key: stranger.key })).statusCode, 404);
  assert.equal(
    (await call(h, 'PUT', path, { key: stranger.key, payload: { featured: [] } })).statusCode,
    404,
  );
  const reader = await givenCaller(h, { scopes: ['catalog:read'] });
  const refused = await call(h, 'PUT', path, { key: reader.key, payload: { featured: [] } });
  assert.equal(refused.statusCode, 403);
  assert.equal((json(refused) as { required_scope: string }).required_scope, 'catalog:write');
});

test("the spec's example writer roles (Composer/Instrumentalist, Lyricist) are accepted", async (t) => {
  const { h, key, path } = await setup(t);
  const credits = await put(h, key, path, {
    writers: [{ name: 'Lena', roles: ['Composer', 'Instrumentalist', 'Lyricist'] }],
  });
  assert.deepEqual(credits.writers, [{ name: 'Lena', roles: ['Composer', 'Instrumentalist', 'Lyricist'] }]);
});
