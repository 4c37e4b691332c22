import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease } from '../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, givenKey, givenLabel, json } from '../helpers/harness.ts';

const CREATED_AT = '2026-03-02T10:00:00.000Z';

test('POST /artists creates an artist with the name trimmed and returned as stored, non-Latin letters included', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { scopes: ['catalog:read', 'catalog:write'] });
  const response = await call(h, 'POST', '/api/v1/artists', {
    key,
    payload: { name: '  Земфира Ёлкина  ', store_a_url: 'https://open.example.com/artist/1' },
  });
  assert.equal(response.statusCode, 201);
  assert.equal(response.headers['cache-control'], 'no-store');
  const { artist } = json(response) as { artist: { id: number } };
  assert.equal(response.headers.location, `${BASE_URL}/api/v1/artists/${artist.id}`);
  assert.deepEqual(artist, {
    id: artist.id,
    name: 'Земфира Ёлкина',
    store_a_url: 'https://open.example.com/artist/1',
    store_b_url: null,
    releases_count: 0,
    created_at: CREATED_AT,
  });
  const read = json(await call(h, 'GET', `/api/v1/artists/${artist.id}`, { key }));
  assert.deepEqual(read, { artist: { ...artist, releases: [] } });
});

test('a name that exists in any case is 409 conflict with the artist_id of the existing one', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const first = json(await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 'Ёлка' } })) as {
    artist: { id: number };
  };
  for (const name of ['ёлка', 'ЁЛКА', ' Ёлка ']) {
    const response = await call(h, 'POST', '/api/v1/artists', { key, payload: { name } });
    assert.equal(response.statusCode, 409, name);
    assert.deepEqual(json(response), {
      error: 'An artist with this name already exists in this label',
      code: 'conflict',
      artist_id: first.artist.id,
    });
  }
  const other = await givenCaller(h);
  assert.equal(
    (await call(h, 'POST', '/api/v1/artists', { key: other.key, payload: { name: 'Ёлка' } })).statusCode,
    201,
  );
});

test('POST /artists refuses a missing or blank name and a store address that is not http(s)', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'A', store_a_url: 'ftp://example.com/a' }, 'store_a_url'],
    [{ name: 'A', store_b_url: 'not a url' }, 'store_b_url'],
    [{ name: 'A', store_b_url: 'javascript:alert(1)' }, 'store_b_url'],
  ];
  for (const [payload, field] of cases) {
    const response = await call(h, 'POST', '/api/v1/artists', { key, payload });
    assert.equal(response.statusCode, 400, JSON.stringify(payload));
    const body = json(response) as { code: string; field: string; error: string };
    assert.equal(body.code, 'invalid');
    assert.equal(body.field, field);
  }
  const list = json(await call(h, 'GET', '/api/v1/artists', { key })) as { total: number };
  assert.equal(list.total, 0, 'nothing half-written');
});

test('PATCH /artists/{id} changes any subset; null clears a store address', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const created = json(
    await call(h, 'POST', '/api/v1/artists', {
      key,
      payload: { name: 'Mira', store_a_url: 'https://a.example/m', store_b_url: 'http://b.example/m' },
    }),
  ) as { artist: { id: number } };
  const id = created.artist.id;
  h.clock.advance(1000);
  let response = await call(h, 'PATCH', `/api/v1/artists/${id}`, { key, payload: { store_a_url: null } });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    artist: {
      id,
      name: 'Mira',
      store_a_url: null,
      store_b_url: 'http://b.example/m',
      releases_count: 0,
      created_at: CREATED_AT,
    },
  });
  response = await call(h, 'PATCH', `/api/v1/artists/${id}`, { key, payload: { name: 'MIRA' } });
  assert.equal(
    (json(response) as { artist: { name: string } }).artist.name,
    'MIRA',
    'a change of case is no conflict',
  );
  await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 'Other' } });
  response = await call(h, 'PATCH', `/api/v1/artists/${id}`, { key, payload: { name: 'other' } });
  assert.equal(response.statusCode, 409);
  response = await call(h, 'PATCH', `/api/v1/artists/${id}`, {
    key,
    payload: { store_b_url: 'mailto:x@y.z' },
  });
  assert.equal(response.statusCode, 400);
  assert.equal((json(response) as { field: string }).field, 'store_b_url');
});

test('GET /artists searches names case-insensitively in any script, with paging', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  for (const name of ['Алиса Ветер', 'АЛИСА', 'Bob Stone', 'Émile Roux', '50%_off']) {
    assert.equal((await call(h, 'POST', '/api/v1/artists', { key, payload: { name } })).statusCode, 201);
  }
  const names = async (q: string) => {
    const response = await call(h, 'GET', `/api/v1/artists?q=${encodeURIComponent(q)}`, { key });
    assert.equal(response.statusCode, 200);
    return (json(response) as { artists: Array<{ name: string }> }).artists.map((a) => a.name);
  };
  assert.deepEqual(await names('алиса'), ['АЛИСА', 'Алиса Ветер']);
  assert.deepEqual(await names('ВЕТ'), ['Алиса Ветер']);
  assert.deepEqual(await names('émile'), ['Émile Roux']);
  assert.deepEqual(await names('%_'), ['50%_off'], '% and _ are literal');
  assert.deepEqual(await names('%'), ['50%_off']);
  const page = await call(h, 'GET', '/api/v1/artists?per_page=2&page=2', { key });
  const body = json(page) as { artists: unknown[]; page: number; per_page: number; total: number };
  assert.deepEqual([body.artists.length, body.page, body.per_page, body.total], [2, 2, 2, 5]);
  assert.equal(page.headers['x-total-count'], '5');
  assert.match(String(page.headers.link), /rel="next"/);
});

test('releases_count, the card releases and GET /artists/{id}/releases (paged, newest first)', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = json(await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 'Mira' } })) as {
    artist: { id: number };
  };
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    h.clock.advance(1000);
    const at = h.ctx.clock.now().toISOString();
    ids.push(
      (
        await givenRelease(h, label.id, {
          artist_id: artist.artist.id,
          title: `R${i}`,
          created_at: at,
          updated_at: at,
        })
      ).id,
    );
  }
  const card = json(await call(h, 'GET', `/api/v1/artists/${artist.artist.id}`, { key })) as {
    artist: { releases_count: number; releases: Array<{ id: number; artist: { id: number; name: string } }> };
  };
  assert.equal(card.artist.releases_count, 3);
  assert.deepEqual(
    card.artist.releases.map((r) => r.id),
    [...ids].reverse(),
  );
  assert.deepEqual(card.artist.releases[0]?.artist, { id: artist.artist.id, name: 'Mira' });
  const list = json(await call(h, 'GET', '/api/v1/artists', { key })) as {
    artists: Array<{ releases_count: number }>;
  };
  assert.equal(list.artists[0]?.releases_count, 3);
  const page = await call(h, 'GET', `/api/v1/artists/${artist.artist.id}/releases?per_page=2`, { key });
  assert.equal(page.statusCode, 200);
  const body = json(page) as {
    releases: Array<{ id: number }>;
    total: number;
    page: number;
    per_page: number;
  };
  assert.deepEqual(
    body.releases.map((r) => r.id),
    [ids[2], ids[1]],
  );
  assert.deepEqual([body.total, body.page, body.per_page], [3, 1, 2]);
});

test("another label's artist answers 404; scopes are enforced", async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const other = await givenLabel(h, { name: 'Other Label' });
  const otherKey = await givenKey(h, other.id);
  const foreign = json(
    await call(h, 'POST', '/api/v1/artists', { key: otherKey, payload: { name: 'X' } }),
  ) as {
    artist: { id: number };
  };
  for (const [method, path] of [
    ['GET', `/api/v1/artists/${foreign.artist.id}`],
    ['GET', `/api/v1/artists/${foreign.artist.id}/releases`],
    ['PATCH', `/api/v1/artists/${foreign.artist.id}`],
  ] as const) {
    const response = await call(h, method, path, {
      key,
      ...(method === 'PATCH' && { payload: { name: 'Y' } }),
    });
    assert.equal(response.statusCode, 404, path);
    assert.deepEqual(json(response), { error: 'Artist not found', code: 'not_found' });
  }
  const reader = await givenKey(h, other.id, { scopes: ['catalog:read'] });
  const response = await call(h, 'POST', '/api/v1/artists', { key: reader, payload: { name: 'Z' } });
  assert.equal(response.statusCode, 403);
  assert.deepEqual(json(response), {
    error: 'This key lacks the scope catalog:write',
    code: 'forbidden',
    required_scope: 'catalog:write',
  });
});

test('GET /artists past the last page is empty and still carries the total', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  await givenArtist(h, label.id, { name: 'Mira Vale' });
  await givenArtist(h, label.id, { name: 'Mirador' });
  for (const [query, total] of [
    ['', '2'],
    ['&q=mira', '2'],
    ['&q=vale', '1'],
  ] as const) {
    const response = await call(h, 'GET', `/api/v1/artists?per_page=1&page=4${query}`, { key });
    assert.equal(response.statusCode, 200);
    assert.deepEqual((json(response) as { artists: unknown[] }).artists, []);
    assert.equal(response.headers['x-total-count'], total, query);
  }
});
