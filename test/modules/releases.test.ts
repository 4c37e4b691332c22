import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease } from '../helpers/catalog.ts';
import {
  BASE_URL,
  buildHarness,
  call,
  givenCaller,
  givenLabel,
  type Harness,
  json,
} from '../helpers/harness.ts';

const NOW = '2026-03-02T10:00:00.000Z';

async function givenArtistViaApi(h: Harness, key: string, name = 'Mira Vale'): Promise<number> {
  const response = await call(h, 'POST', '/api/v1/artists', { key, payload: { name } });
  return (json(response) as { artist: { id: number } }).artist.id;
}

function draftBody(artistId: number, extra: Record<string, unknown> = {}) {
  return {
    artist_id: artistId,
    type: 'single',
    title: 'Night Drive',
    genre: 'Electronic',
    release_date: '2026-06-01',
    upc: null,
    territories: 'worldwide',
    featured_artists: [{ name: 'Дима Лес' }],
    ...extra,
  };
}

test('POST /releases creates a draft: 201 with the full card, next_steps and a history entry', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const artistId = await givenArtistViaApi(h, key);
  const response = await call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId) });
  assert.equal(response.statusCode, 201);
  const { release } = json(response) as { release: { id: number; next_steps: string[] } };
  assert.equal(response.headers.location, `${BASE_URL}/api/v1/releases/${release.id}`);
  assert.equal(release.next_steps.length, 4);
  assert.match(
    release.next_steps[0] ?? '',
    new RegExp(`^PUT ${BASE_URL}/api/v1/releases/${release.id}/cover`),
  );
  assert.match(release.next_steps[3] ?? '', /submit/);
  const card = {
    id: release.id,
    title: 'Night Drive',
    type: 'single',
    status: 'draft',
    release_date: '2026-06-01',
    upc: null,
    genre: 'Electronic',
    artist: { id: artistId, name: 'Mira Vale' },
    cover_url: null,
    tracks_count: 0,
    created_at: NOW,
    submitted_at: null,
    updated_at: NOW,
    version: null,
    original_release_date: null,
    territories: 'worldwide',
    featured_artists: [{ name: 'Дима Лес' }],
    review_status: null,
    review_comment: null,
    store_links: {},
    is_ai_generated: false,
    tracks: [],
    dsp_statuses: [],
  };
  assert.deepEqual(release, { ...card, next_steps: release.next_steps });
  const read = await call(h, 'GET', `/api/v1/releases/${release.id}`, { key });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(json(read), { release: card });
  const history = await call(h, 'GET', `/api/v1/releases/${release.id}/history`, { key });
  assert.deepEqual(json(history), {
    history: [{ status: 'draft', review_status: null, comment: null, at: NOW }],
  });
  const me = json(await call(h, 'GET', '/api/v1/me', { key })) as {
    plan: { usage: { releases: number; artists: number } };
  };
  assert.deepEqual([me.plan.usage.releases, me.plan.usage.artists], [1, 1]);
});

test('POST /releases validates every field with the documented error and field', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const artistId = await givenArtistViaApi(h, key);
  const other = await givenLabel(h, { name: 'Other' });
  const foreignArtist = await givenArtist(h, other.id, { name: 'Foreign' });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ artist_id: foreignArtist.id }, 'artist_id'],
    [{ artist_id: 999999 }, 'artist_id'],
    [{ type: 'mixtape' }, 'type'],
    [{ title: '   ' }, 'title'],
    [{ genre: 'Polka-Step' }, 'genre'],
    [{ release_date: '2026-02-30' }, 'release_date'],
    [{ release_date: '01.06.2026' }, 'release_date'],
    [{ upc: '123456789013' }, 'upc'],
    [{ upc: '12345678901' }, 'upc'],
    [{ territories: ['DE', 'XX'] }, 'territories'],
    [{ territories: [] }, 'territories'],
    [{ territories: 'everywhere' }, 'territories'],
    [{ featured_artists: [{ name: ' ' }] }, 'featured_artists'],
  ];
  for (const [extra, field] of cases) {
    const response = await call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId, extra) });
    assert.equal(response.statusCode, 400, JSON.stringify(extra));
    const body = json(response) as { code: string; field: string };
    assert.equal(body.code, 'invalid', JSON.stringify(extra));
    assert.equal(body.field.split('/')[0], field, JSON.stringify(extra));
  }
  const list = json(await call(h, 'GET', '/api/v1/releases', { key })) as { total: number };
  assert.equal(list.total, 0, 'nothing half-written');
});

test('UPC-A and EAN-13 with correct check digits are accepted; a UPC is unique within the label', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const artistId = await givenArtistViaApi(h, key);
  const first = await call(h, 'POST', '/api/v1/releases', {
    key,
    payload: draftBody(artistId, { upc: '036000291452' }),
  });
  assert.equal(first.statusCode, 201);
  const ean = await call(h, 'POST', '/api/v1/releases', {
    key,
    payload: draftBody(artistId, { upc: '4006381333931', territories: ['de', 'AT', 'DE'] }),
  });
  assert.equal(ean.statusCode, 201);
  assert.deepEqual((json(ean) as { release: { territories: string[] } }).release.territories, ['DE', 'AT']);
  const dup = await call(h, 'POST', '/api/v1/releases', {
    key,
    payload: draftBody(artistId, { upc: '036000291452' }),
  });
  assert.equal(dup.statusCode, 409);
  assert.deepEqual(json(dup), {
    error: 'Another release of this label has this UPC',
    code: 'conflict',
    field: 'upc',
    release_id: (json(first) as { release: { id: number } }).release.id,
  });
  const other = await givenCaller(h);
  const otherArtist = await givenArtistViaApi(h, other.key);
  const elsewhere = await call(h, 'POST', '/api/v1/releases', {
    key: other.key,
    payload: draftBody(otherArtist, { upc: '036000291452' }),
  });
  assert.equal(elsewhere.statusCode, 201, 'another label may hold the same UPC');
});

test('drafts count toward the plan release limit: 403 plan_limit with the documented fields; DELETE frees one', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'label' });
  const artistId = await givenArtistViaApi(h, key);
  await h.ctx.db
    .updateTable('labels')
    .set({ limit_overrides: JSON.stringify({ releases: 2 }) })
    .where('id', '=', label.id)
    .execute();
  const ids: number[] = [];
  for (let i = 0; i < 2; i++) {
    const response = await call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId) });
    assert.equal(response.statusCode, 201);
    ids.push((json(response) as { release: { id: number } }).release.id);
  }
  const refused = await call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId) });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(json(refused), {
    error: 'The releases limit of the plan is used up',
    code: 'plan_limit',
    resource: 'releases',
    plan: 'label',
    limit: 2,
    used: 2,
    required_plan: 'pro',
  });
  const deleted = await call(h, 'DELETE', `/api/v1/releases/${ids[0]}`, { key });
  assert.equal(deleted.statusCode, 200);
  assert.deepEqual(json(deleted), { ok: true });
  assert.equal((await call(h, 'GET', `/api/v1/releases/${ids[0]}`, { key })).statusCode, 404);
  const me = json(await call(h, 'GET', '/api/v1/me/usage', { key })) as {
    usage: { releases: { used: number } };
  };
  assert.equal(me.usage.releases.used, 1);
  assert.equal(
    (await call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId) })).statusCode,
    201,
  );
});

test('concurrent creations never pass the release limit', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  await h.ctx.db
    .updateTable('labels')
    .set({ limit_overrides: JSON.stringify({ releases: 5 }) })
    .where('id', '=', label.id)
    .execute();
  const artistId = (await givenArtist(h, label.id)).id;
  const responses = await Promise.all(
    Array.from({ length: 12 }, () =>
      call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId) }),
    ),
  );
  assert.deepEqual(responses.map((r) => r.statusCode).sort(), [...Array(5).fill(201), ...Array(7).fill(403)]);
});

test('PATCH /releases/{id} edits the listed fields of a draft and answers 409 once it is not a draft', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const artistId = await givenArtistViaApi(h, key);
  const created = json(await call(h, 'POST', '/api/v1/releases', { key, payload: draftBody(artistId) })) as {
    release: { id: number };
  };
  const id = created.release.id;
  h.clock.advance(60_000);
  const response = await call(h, 'PATCH', `/api/v1/releases/${id}`, {
    key,
    payload: {
      title: 'Night Drive (Deluxe)',
      version: 'Remastered',
      genre: 'Pop',
      release_date: '2026-07-01',
      original_release_date: '2019-01-31',
      upc: '036000291452',
      territories: ['RU', 'KZ'],
    },
  });
  assert.equal(response.statusCode, 200);
  const { release } = json(response) as { release: Record<string, unknown> };
  assert.deepEqual(
    {
      title: release.title,
      version: release.version,
      genre: release.genre,
      release_date: release.release_date,
      original_release_date: release.original_release_date,
      upc: release.upc,
      territories: release.territories,
      updated_at: release.updated_at,
      created_at: release.created_at,
    },
    {
      title: 'Night Drive (Deluxe)',
      version: 'Remastered',
      genre: 'Pop',
      release_date: '2026-07-01',
      original_release_date: '2019-01-31',
      upc: '036000291452',
      territories: ['RU', 'KZ'],
      updated_at: '2026-03-02T10:01:00.000Z',
      created_at: NOW,
    },
  );
  const cleared = await call(h, 'PATCH', `/api/v1/releases/${id}`, {
    key,
    payload: { version: null, upc: null },
  });
  assert.deepEqual(
    [
      (json(cleared) as { release: { version: unknown; upc: unknown } }).release.version,
      (json(cleared) as { release: { upc: unknown } }).release.upc,
    ],
    [null, null],
  );
  for (const [payload, field] of [
    [{ genre: 'Nope' }, 'genre'],
    [{ upc: '' }, 'upc'],
    [{ title: null }, 'title'],
    [{ release_date: 20260701 }, 'release_date'],
  ] as const) {
    const bad = await call(h, 'PATCH', `/api/v1/releases/${id}`, { key, payload });
    assert.equal(bad.statusCode, 400, JSON.stringify(payload));
    assert.equal((json(bad) as { field: string }).field, field, JSON.stringify(payload));
  }
  for (const status of ['submitting', 'submitted', 'live', 'failed', 'takedown']) {
    await h.ctx.db.updateTable('releases').set({ status }).where('id', '=', id).execute();
    const refused = await call(h, 'PATCH', `/api/v1/releases/${id}`, { key, payload: { title: 'X' } });
    assert.equal(refused.statusCode, 409, status);
    assert.deepEqual(json(refused), {
      error: `Editing is only possible while the release is a draft (it is ${status})`,
      code: 'conflict',
    });
    const deleting = await call(h, 'DELETE', `/api/v1/releases/${id}`, { key });
    assert.equal(deleting.statusCode, 409, status);
  }
});

test("another label's release answers 404 on read, edit, delete and history", async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const other = await givenLabel(h, { name: 'Other' });
  const foreign = await givenRelease(h, other.id);
  for (const [method, path] of [
    ['GET', `/api/v1/releases/${foreign.id}`],
    ['PATCH', `/api/v1/releases/${foreign.id}`],
    ['DELETE', `/api/v1/releases/${foreign.id}`],
    ['GET', `/api/v1/releases/${foreign.id}/history`],
  ] as const) {
    const response = await call(h, method, path, {
      key,
      ...(method === 'PATCH' && { payload: { title: 'X' } }),
    });
    assert.equal(response.statusCode, 404, `${method} ${path}`);
    assert.deepEqual(json(response), { error: 'Release not found', code: 'not_found' });
  }
  const huge = await call(h, 'GET', '/api/v1/releases/99999999999', { key });
  assert.equal(huge.statusCode, 400);
  assert.equal((json(huge) as { field: string }).field, 'id');
});

test('input no engine can store, or no clock can read, is 400 with its field, never 500', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const artistId = await givenArtistViaApi(h, key);
  const cases: Array<[string, string, Record<string, unknown> | undefined, string]> = [
    ['POST', '/api/v1/releases', draftBody(artistId, { title: 'Night\u0000Drive' }), 'title'],
    [
      'POST',
      '/api/v1/releases',
      draftBody(artistId, { featured_artists: [{ name: 'A\u0000' }] }),
      'featured_artists/0/name',
    ],
    ['POST', '/api/v1/releases', draftBody(3_000_000_000), 'artist_id'],
    ['POST', '/api/v1/artists', { name: 'Nul\u0000' }, 'name'],
    ['GET', `/api/v1/artists?q=${encodeURIComponent('a\u0000b')}`, undefined, 'q'],
    ['GET', '/api/v1/releases?artist_id=3000000000', undefined, 'artist_id'],
    [
      'GET',
      `/api/v1/releases?updated_since=${encodeURIComponent('2026-12-31T23:59:60Z')}`,
      undefined,
      'updated_since',
    ],
  ];
  for (const [method, path, payload, field] of cases) {
    const response = await call(h, method as 'GET' | 'POST', path, { key, ...(payload && { payload }) });
    assert.equal(response.statusCode, 400, `${method} ${path} ${JSON.stringify(payload)}`);
    assert.equal((json(response) as { field: string }).field, field, `${method} ${path}`);
  }
  assert.equal((json(await call(h, 'GET', '/api/v1/releases', { key })) as { total: number }).total, 0);
});
