import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, givenKey, givenLabel, json } from '../helpers/harness.ts';

const NOW = '2026-03-02T10:00:00.000Z';

test('GET /releases: every filter and sort, ids at most 100, updated_since, paging headers', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const a = await givenArtist(h, label.id, { name: 'A' });
  const b = await givenArtist(h, label.id, { name: 'B' });
  const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();
  const r1 = await givenRelease(h, label.id, {
    artist_id: a.id,
    title: 'Charlie',
    release_date: '2026-05-01',
    status: 'live',
    upc: '036000291452',
    created_at: at(1),
    updated_at: at(10),
  });
  const r2 = await givenRelease(h, label.id, {
    artist_id: b.id,
    title: 'alpha',
    release_date: '2026-07-01',
    status: 'draft',
    created_at: at(2),
    updated_at: at(2),
  });
  const r3 = await givenRelease(h, label.id, {
    artist_id: a.id,
    title: 'Bravo',
    release_date: '2026-06-01',
    status: 'draft',
    created_at: at(3),
    updated_at: at(3),
  });
  await givenTrack(h, label.id, r1.id, { title: 'T1' });
  await givenTrack(h, label.id, r1.id, { title: 'T2', number: 2 });
  const other = await givenLabel(h, { name: 'Other' });
  await givenRelease(h, other.id, { title: 'Foreign', upc: '036000291452' });
  const ids = async (query: string) => {
    const response = await call(h, 'GET', `/api/v1/releases${query}`, { key });
    assert.equal(response.statusCode, 200, query);
    return (json(response) as { releases: Array<{ id: number }> }).releases.map((r) => r.id);
  };
  assert.deepEqual(await ids(''), [r3.id, r2.id, r1.id]);
  assert.deepEqual(await ids('?sort=created_at'), [r1.id, r2.id, r3.id]);
  assert.deepEqual(await ids('?sort=-release_date'), [r2.id, r3.id, r1.id]);
  assert.deepEqual(await ids('?sort=release_date'), [r1.id, r3.id, r2.id]);
  assert.deepEqual(await ids('?sort=title'), [r2.id, r3.id, r1.id], 'title order ignores case');
  assert.deepEqual(await ids('?status=draft'), [r3.id, r2.id]);
  assert.deepEqual(await ids(`?artist_id=${a.id}`), [r3.id, r1.id]);
  assert.deepEqual(await ids('?upc=036000291452'), [r1.id]);
  assert.deepEqual(await ids(`?ids=${r1.id},${r3.id}`), [r3.id, r1.id]);
  assert.deepEqual(await ids(`?updated_since=${encodeURIComponent(at(2))}`), [r3.id, r1.id]);
  assert.deepEqual(
    await ids(`?updated_since=${encodeURIComponent('2026-03-02T13:05:00+03:00')}`),
    [r1.id],
    'offsets are understood',
  );
  const listed = json(await call(h, 'GET', `/api/v1/releases?ids=${r1.id}`, { key })) as {
    releases: Array<Record<string, unknown>>;
  };
  assert.deepEqual(listed.releases[0], {
    id: r1.id,
    title: 'Charlie',
    type: 'single',
    status: 'live',
    release_date: '2026-05-01',
    upc: '036000291452',
    genre: 'Pop',
    artist: { id: a.id, name: 'A' },
    cover_url: null,
    tracks_count: 2,
    created_at: at(1),
    submitted_at: null,
    updated_at: at(10),
  });
  for (const [query, field] of [
    [`?ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`, 'ids'],
    ['?ids=1,x', 'ids'],
    ['?status=published', 'status'],
    ['?sort=-title', 'sort'],
    ['?updated_since=yesterday', 'updated_since'],
    ['?artist_id=abc', 'artist_id'],
  ] as const) {
    const response = await call(h, 'GET', `/api/v1/releases${query}`, { key });
    assert.equal(response.statusCode, 400, query);
    assert.equal((json(response) as { field: string }).field, field, query);
  }
  const page = await call(h, 'GET', '/api/v1/releases?per_page=1&page=2&status=draft', { key });
  assert.equal(page.headers['x-total-count'], '2');
  assert.equal(
    page.headers.link,
    `<${BASE_URL}/api/v1/releases?page=1&per_page=1&status=draft>; rel="prev", <${BASE_URL}/api/v1/releases?page=2&per_page=1&status=draft>; rel="last"`,
  );
  assert.deepEqual(json(page), {
    releases: [
      (json(await call(h, 'GET', `/api/v1/releases?ids=${r2.id}`, { key })) as { releases: unknown[] })
        .releases[0],
    ],
    page: 2,
    per_page: 1,
    total: 2,
  });
});

test('the card derives is_ai_generated from its tracks and lists tracks in order', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  await givenTrack(h, label.id, release.id, { title: 'Second', number: 2 });
  await givenTrack(h, label.id, release.id, { title: 'First', number: 1 });
  let card = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })) as {
    release: { is_ai_generated: boolean; tracks: Array<{ title: string }>; tracks_count: number };
  };
  assert.equal(card.release.is_ai_generated, false);
  assert.deepEqual(
    card.release.tracks.map((track) => track.title),
    ['First', 'Second'],
  );
  assert.equal(card.release.tracks_count, 2);
  await h.ctx.db
    .updateTable('tracks')
    .set({ ai_service: 'Suno', ai_elements: '["vocals"]' })
    .where('title', '=', 'Second')
    .execute();
  card = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })) as typeof card;
  assert.equal(card.release.is_ai_generated, true);
});

test('list totals follow inserts, status changes, deletions and the sandbox copy', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  const a = await givenRelease(h, label.id, { artist_id: artist.id, status: 'draft' });
  const b = await givenRelease(h, label.id, { artist_id: artist.id, status: 'live' });
  await givenRelease(h, label.id, { artist_id: artist.id, status: 'live' });
  const totals = async (k: string) => {
    const out: Record<string, string | undefined> = {};
    for (const query of ['', '?status=live', '?status=draft', '?status=failed']) {
      const response = await call(h, 'GET', `/api/v1/releases${query}`, { key: k });
      out[query || 'all'] = response.headers['x-total-count'] as string | undefined;
    }
    return out;
  };
  assert.deepEqual(await totals(key), {
    all: '3',
    '?status=live': '2',
    '?status=draft': '1',
    '?status=failed': '0',
  });
  await h.ctx.db.updateTable('releases').set({ status: 'failed' }).where('id', '=', b.id).execute();
  assert.deepEqual(await totals(key), {
    all: '3',
    '?status=live': '1',
    '?status=draft': '1',
    '?status=failed': '1',
  });
  assert.equal((await call(h, 'DELETE', `/api/v1/releases/${a.id}`, { key })).statusCode, 200);
  assert.deepEqual(await totals(key), {
    all: '2',
    '?status=live': '1',
    '?status=draft': '0',
    '?status=failed': '1',
  });
  const usage = json(await call(h, 'GET', '/api/v1/me/usage', { key })) as {
    usage: { releases: { used: number } };
  };
  assert.equal(usage.usage.releases.used, 2);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  assert.deepEqual(await totals(sandboxKey), {
    all: '2',
    '?status=live': '1',
    '?status=draft': '0',
    '?status=failed': '1',
  });
});

test('GET /releases/{id}/dsp-status lists the platform statuses only (empty for a fresh release)', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { scopes: ['catalog:read'] });
  const release = await givenRelease(h, label.id);
  let response = await call(h, 'GET', `/api/v1/releases/${release.id}/dsp-status`, { key });
  assert.equal(response.statusCode, 200);
  assert.equal(typeof response.headers.etag, 'string');
  assert.deepEqual(json(response), { release_id: release.id, dsp_statuses: [] });
  await h.ctx.db
    .insertInto('release_dsp_statuses')
    .values([
      {
        release_id: release.id,
        label_id: label.id,
        dsp: 'yandex',
        stage: 'live',
        detail: null,
        updated_at: NOW,
      },
      {
        release_id: release.id,
        label_id: label.id,
        dsp: 'apple',
        stage: 'rejected',
        detail: 'Cover text',
        updated_at: NOW,
      },
    ])
    .execute();
  response = await call(h, 'GET', `/api/v1/releases/${release.id}/dsp-status`, { key });
  assert.deepEqual(json(response), {
    release_id: release.id,
    dsp_statuses: [
      { dsp: 'apple', stage: 'rejected', detail: 'Cover text', updated_at: NOW },
      { dsp: 'yandex', stage: 'live', detail: null, updated_at: NOW },
    ],
  });
});

test('a page past the end of the release list is empty and still carries the total', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  await givenRelease(h, label.id, { artist_id: artist.id, status: 'live' });
  await givenRelease(h, label.id, { artist_id: artist.id, status: 'draft' });
  for (const [query, total] of [
    ['', '2'],
    ['&status=live', '1'],
    [`&artist_id=${artist.id}`, '2'],
  ] as const) {
    const response = await call(h, 'GET', `/api/v1/releases?per_page=1&page=3${query}`, { key });
    assert.equal(response.statusCode, 200);
    assert.deepEqual((json(response) as { releases: unknown[] }).releases, []);
    assert.equal(response.headers['x-total-count'], total, query);
  }
});
