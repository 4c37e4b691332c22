import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchKey } from '../../src/lib/text.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

interface SearchBody {
  query: string;
  releases: Array<{ id: number; title: string }>;
  artists: Array<{ id: number; name: string; releases_count: number }>;
  tracks: Array<{
    id: number;
    title: string;
    isrc: string | null;
    release_id: number;
    release_title: string;
  }>;
}

async function search(h: Harness, key: string, q: string): Promise<SearchBody> {
  const response = await call(h, 'GET', `/api/v1/search?q=${encodeURIComponent(q)}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as SearchBody;
}

/** What each kind found, by title or name. */
async function found(h: Harness, key: string, q: string) {
  const body = await search(h, key, q);
  return {
    releases: body.releases.map((release) => release.title),
    artists: body.artists.map((artist) => artist.name),
    tracks: body.tracks.map((track) => track.title),
  };
}

test('GET /search returns releases, artists and tracks in their documented shapes', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id, { name: 'Night Owls' });
  const release = await givenRelease(h, label.id, {
    artist_id: artist.id,
    title: 'Night Drive',
    type: 'ep',
    status: 'live',
    upc: '5012345678900',
    release_date: '2026-05-01',
    genre: 'Electronic',
    submitted_at: '2026-03-01T09:00:00.000Z',
  });
  const track = await givenTrack(h, label.id, release.id, { title: 'Night Call', isrc: 'USRC17607839' });
  await givenTrack(h, label.id, release.id, { title: 'Daylight', number: 2 });
  const at = h.clock.now().toISOString();

  const response = await call(h, 'GET', '/api/v1/search?q=%20night%20', { key });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.deepEqual(json(response), {
    query: 'night',
    releases: [
      {
        id: release.id,
        title: 'Night Drive',
        type: 'ep',
        status: 'live',
        release_date: '2026-05-01',
        upc: '5012345678900',
        genre: 'Electronic',
        artist: { id: artist.id, name: 'Night Owls' },
        cover_url: null,
        tracks_count: 2,
        created_at: at,
        submitted_at: '2026-03-01T09:00:00.000Z',
        updated_at: at,
      },
    ],
    artists: [{ id: artist.id, name: 'Night Owls', releases_count: 1 }],
    tracks: [
      {
        id: track.id,
        title: 'Night Call',
        isrc: 'USRC17607839',
        release_id: release.id,
        release_title: 'Night Drive',
      },
    ],
  });
});

test('GET /search matches any case in any script, and short queries too', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id, { name: 'Ёлка Зимняя' });
  const release = await givenRelease(h, label.id, { artist_id: artist.id, title: 'ЁЛОЧНЫЙ БАЛ' });
  await givenTrack(h, label.id, release.id, { title: 'Ёлочка' });

  assert.deepEqual(await found(h, key, 'ёло'), {
    releases: ['ЁЛОЧНЫЙ БАЛ'],
    artists: [],
    tracks: ['Ёлочка'],
  });
  assert.deepEqual(await found(h, key, 'ЁЛ'), {
    releases: ['ЁЛОЧНЫЙ БАЛ'],
    artists: ['Ёлка Зимняя'],
    tracks: ['Ёлочка'],
  });
  assert.deepEqual(await found(h, key, 'зимн'), { releases: [], artists: ['Ёлка Зимняя'], tracks: [] });
});

test('GET /search finds a release by its UPC or the UPC’s first digits, a track by its ISRC', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  for (const [title, upc] of [
    ['Second', '5012345678917'],
    ['First', '5012345678900'],
    ['Other', '4012345678901'],
  ] as const) {
    await givenRelease(h, label.id, { artist_id: artist.id, title, upc });
  }
  const release = await givenRelease(h, label.id, { artist_id: artist.id, title: 'Title 5012' });
  await givenTrack(h, label.id, release.id, { title: 'Coded', isrc: 'USRC17607839' });
  await givenTrack(h, label.id, release.id, { title: 'usrc17607839 remix', number: 2 });

  assert.deepEqual((await found(h, key, '5012345678900')).releases, ['First']);
  // UPC matches in UPC order, then title matches.
  assert.deepEqual((await found(h, key, '5012')).releases, ['First', 'Second', 'Title 5012']);
  assert.deepEqual((await found(h, key, '99')).releases, []);
  // The ISRC match first, then titles that contain the text.
  assert.deepEqual((await found(h, key, 'us-rc1-76-07839')).tracks, ['Coded']);
  assert.deepEqual((await found(h, key, 'USRC17607839')).tracks, ['Coded', 'usrc17607839 remix']);
});

test('GET /search returns at most ten of each kind, newest first', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { title: 'Album' });
  for (let n = 1; n <= 12; n++) {
    await givenArtist(h, label.id, { name: `Echo ${n}` });
    await givenRelease(h, label.id, { artist_id: release.artist_id, title: `Echo ${n}` });
    await givenTrack(h, label.id, release.id, { title: `Echo ${n}`, number: n });
  }
  const newestTen = Array.from({ length: 10 }, (_, i) => `Echo ${12 - i}`);
  assert.deepEqual(await found(h, key, 'echo'), {
    releases: newestTen,
    artists: newestTen,
    tracks: newestTen,
  });
});

test('GET /search needs q of at least two characters besides spaces', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  for (const q of ['a', '  a  ', '']) {
    const response = await call(h, 'GET', `/api/v1/search?q=${encodeURIComponent(q)}`, { key });
    assert.equal(response.statusCode, 400, q);
    assert.deepEqual(json(response), {
      error: 'q must have at least 2 characters besides spaces',
      code: 'invalid',
      field: 'q',
    });
  }
  const missing = await call(h, 'GET', '/api/v1/search', { key });
  assert.equal(missing.statusCode, 400);
  assert.equal((json(missing) as { field: string }).field, 'q');
  assert.deepEqual(await found(h, key, '🎵🎵'), { releases: [], artists: [], tracks: [] });
});

test('GET /search never shows another label’s catalog', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const theirArtist = await givenArtist(h, other.label.id, { name: 'Shared Name' });
  const theirs = await givenRelease(h, other.label.id, {
    artist_id: theirArtist.id,
    title: 'Shared Title',
    upc: '5012345678900',
  });
  await givenTrack(h, other.label.id, theirs.id, { title: 'Shared Song', isrc: 'USRC17607839' });
  const empty = { releases: [], artists: [], tracks: [] };

  for (const q of ['shared', 'sh', '5012345678900', '501', 'USRC17607839']) {
    assert.deepEqual(await found(h, key, q), empty, q);
  }
  await givenArtist(h, label.id, { name: 'Shared Name' });
  assert.deepEqual(await found(h, key, 'shared'), { ...empty, artists: ['Shared Name'] });
  assert.deepEqual(await found(h, other.key, 'shared'), {
    releases: ['Shared Title'],
    artists: ['Shared Name'],
    tracks: ['Shared Song'],
  });
});

test('GET /search follows renames and deletions at once', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id, { name: 'Old Name' });
  const release = await givenRelease(h, label.id, { artist_id: artist.id, title: 'Old Title' });
  const track = await givenTrack(h, label.id, release.id, { title: 'Old Song' });

  await h.ctx.db
    .updateTable('artists')
    .set({ name: 'Новое Имя', name_key: searchKey('Новое Имя') })
    .where('id', '=', artist.id)
    .execute();
  await h.ctx.db
    .updateTable('tracks')
    .set({ title: 'Новая Песня', title_key: searchKey('Новая Песня') })
    .where('id', '=', track.id)
    .execute();
  assert.deepEqual(await found(h, key, 'old'), { releases: ['Old Title'], artists: [], tracks: [] });
  assert.deepEqual(await found(h, key, 'НОВ'), {
    releases: [],
    artists: ['Новое Имя'],
    tracks: ['Новая Песня'],
  });

  await h.ctx.db.deleteFrom('releases').where('id', '=', release.id).execute();
  assert.deepEqual(await found(h, key, 'нов'), { releases: [], artists: ['Новое Имя'], tracks: [] });
  assert.deepEqual(await found(h, key, 'old'), { releases: [], artists: [], tracks: [] });
});

test('GET /search needs catalog:read', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { scopes: ['stats:read'] });
  const response = await call(h, 'GET', '/api/v1/search?q=night', { key });
  assert.equal(response.statusCode, 403);
  assert.deepEqual(json(response), {
    error: 'This key lacks the scope catalog:read',
    code: 'forbidden',
    required_scope: 'catalog:read',
  });
});
