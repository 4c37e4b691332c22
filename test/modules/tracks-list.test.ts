import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

interface TrackListBody {
  tracks: Array<{ id: number; title: string; number: number; release: { id: number } }>;
  page: number;
  per_page: number;
  total: number;
}

async function listTracks(h: Harness, key: string, query = ''): Promise<TrackListBody> {
  const response = await call(h, 'GET', `/api/v1/tracks${query}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as TrackListBody;
}

const titles = (body: TrackListBody) => body.tracks.map((track) => track.title);

test('GET /tracks lists the label’s tracks newest first, each with its release', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id, { name: 'Мира Вэйл' });
  const release = await givenRelease(h, label.id, {
    artist_id: artist.id,
    title: 'Night Drive',
    status: 'live',
    upc: '5012345678900',
  });
  await givenTrack(h, label.id, release.id, { title: 'Intro', number: 1 });
  const track = await givenTrack(h, label.id, release.id, {
    title: 'Night Drive',
    number: 2,
    version: 'Radio Edit',
    isrc: 'USRC17607839',
    explicit: 1,
    language: 'en',
    writers: JSON.stringify([{ name: 'Mira Vale', roles: ['Composer'] }]),
  });
  const at = h.clock.now().toISOString();

  const response = await call(h, 'GET', '/api/v1/tracks', { key });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-total-count'], '2');
  assert.equal(response.headers.link, `<${BASE_URL}/api/v1/tracks?page=1&per_page=20>; rel="last"`);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.match(String(response.headers.etag), /^"/);
  const body = json(response) as TrackListBody;
  assert.deepEqual(titles(body), ['Night Drive', 'Intro']);
  assert.deepEqual(body.tracks[0], {
    id: track.id,
    release_id: release.id,
    number: 2,
    title: 'Night Drive',
    version: 'Radio Edit',
    version_type: null,
    isrc: 'USRC17607839',
    explicit: true,
    instrumental: false,
    language: 'en',
    preview_start_sec: null,
    lyrics: null,
    writers: [{ name: 'Mira Vale', roles: ['Composer'] }],
    contributors: [],
    featured: [],
    audio: null,
    ai: null,
    created_at: at,
    updated_at: at,
    release: {
      id: release.id,
      title: 'Night Drive',
      status: 'live',
      upc: '5012345678900',
      artist_name: 'Мира Вэйл',
    },
  });
  assert.deepEqual({ ...body, tracks: [] }, { tracks: [], page: 1, per_page: 20, total: 2 });
});

test('GET /tracks pages with X-Total-Count and Link, other query parameters kept', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  for (let n = 1; n <= 5; n++) await givenTrack(h, label.id, release.id, { title: `Song ${n}`, number: n });

  const response = await call(h, 'GET', '/api/v1/tracks?q=song&page=2&per_page=2', { key });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-total-count'], '5');
  const url = (page: number) => `${BASE_URL}/api/v1/tracks?page=${page}&per_page=2&q=song`;
  assert.equal(
    response.headers.link,
    `<${url(3)}>; rel="next", <${url(1)}>; rel="prev", <${url(3)}>; rel="last"`,
  );
  const body = json(response) as TrackListBody;
  assert.deepEqual(titles(body), ['Song 3', 'Song 2']);
  assert.deepEqual([body.page, body.per_page, body.total], [2, 2, 5]);
  assert.deepEqual(titles(await listTracks(h, key, '?page=3&per_page=2')), ['Song 1']);
  assert.deepEqual(titles(await listTracks(h, key, '?page=9&per_page=2')), []);
});

test('GET /tracks?isrc= matches exactly, in any case and with hyphens; a malformed ISRC is 400', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  await givenTrack(h, label.id, release.id, { title: 'Wanted', isrc: 'USRC17607839' });
  await givenTrack(h, label.id, release.id, { title: 'Other', number: 2, isrc: 'USRC17607840' });

  assert.deepEqual(titles(await listTracks(h, key, '?isrc=USRC17607839')), ['Wanted']);
  assert.deepEqual(titles(await listTracks(h, key, '?isrc=us-rc1-76-07839')), ['Wanted']);
  assert.deepEqual(titles(await listTracks(h, key, '?isrc=USRC17600000')), []);

  const response = await call(h, 'GET', '/api/v1/tracks?isrc=USRC1760', { key });
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), {
    error: 'isrc must be an ISRC: 12 characters such as USRC17607839 (hyphens allowed)',
    code: 'invalid',
    field: 'isrc',
  });
});

test('GET /tracks?release_id= lists that release’s tracks in track order; another label’s release is 404', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  const elsewhere = await givenRelease(h, label.id, { title: 'Elsewhere', artist_id: release.artist_id });
  await givenTrack(h, label.id, release.id, { title: 'Second', number: 2 });
  await givenTrack(h, label.id, release.id, { title: 'First', number: 1 });
  await givenTrack(h, label.id, elsewhere.id, { title: 'Not this one' });
  const foreign = await givenRelease(h, other.label.id);
  await givenTrack(h, other.label.id, foreign.id, { title: 'Foreign' });

  assert.deepEqual(titles(await listTracks(h, key, `?release_id=${release.id}`)), ['First', 'Second']);
  assert.deepEqual(titles(await listTracks(h, key, `?release_id=${release.id}&q=sec`)), ['Second']);

  for (const id of [foreign.id, 999999]) {
    const response = await call(h, 'GET', `/api/v1/tracks?release_id=${id}`, { key });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(json(response), { error: 'Release not found', code: 'not_found' });
  }
  const invalid = await call(h, 'GET', '/api/v1/tracks?release_id=abc', { key });
  assert.equal(invalid.statusCode, 400);
  assert.equal((json(invalid) as { field: string }).field, 'release_id');
});

test('GET /tracks?q= finds part of a title in any case and script, and takes %, _ and quotes literally', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  const songs = [
    'Ёлка в огне',
    'ЗИМНЯЯ НОЧЬ',
    'Night Drive',
    '100% Love',
    'snake_case',
    'Straße',
    'Say "Hi"',
  ];
  for (const [i, title] of songs.entries())
    await givenTrack(h, label.id, release.id, { title, number: i + 1 });

  const search = async (q: string) => titles(await listTracks(h, key, `?q=${encodeURIComponent(q)}`));
  assert.deepEqual(await search('ЁЛКА'), ['Ёлка в огне']);
  assert.deepEqual(await search('зимняя ночь'), ['ЗИМНЯЯ НОЧЬ']);
  assert.deepEqual(await search('ночь'), ['ЗИМНЯЯ НОЧЬ']);
  assert.deepEqual(await search('IGHT d'), ['Night Drive']);
  assert.deepEqual(await search('NI'), ['Night Drive']);
  assert.deepEqual(await search('0%'), ['100% Love']);
  assert.deepEqual(await search('e_c'), ['snake_case']);
  assert.deepEqual(await search('STRASSE'), []);
  assert.deepEqual(await search('straße'), ['Straße']);
  assert.deepEqual(await search('"hi"'), ['Say "Hi"']);
  assert.deepEqual(await search('y "'), ['Say "Hi"']);
  assert.deepEqual(await search('  '), [...songs].reverse());
});

test('GET /tracks never shows another label’s tracks', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const mine = await givenRelease(h, label.id);
  await givenTrack(h, label.id, mine.id, { title: 'Mine', isrc: 'USRC17607839' });
  const theirs = await givenRelease(h, other.label.id);
  await givenTrack(h, other.label.id, theirs.id, { title: 'Theirs mine too', isrc: 'USRC17607839' });

  assert.deepEqual(titles(await listTracks(h, key)), ['Mine']);
  assert.deepEqual(titles(await listTracks(h, key, '?q=mine')), ['Mine']);
  assert.deepEqual(titles(await listTracks(h, key, '?isrc=USRC17607839')), ['Mine']);
  assert.deepEqual(titles(await listTracks(h, other.key, '?q=mine')), ['Theirs mine too']);
});

test('GET /tracks needs catalog:read', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { scopes: ['links:read'] });
  const response = await call(h, 'GET', '/api/v1/tracks', { key });
  assert.equal(response.statusCode, 403);
  assert.deepEqual(json(response), {
    error: 'This key lacks the scope catalog:read',
    code: 'forbidden',
    required_scope: 'catalog:read',
  });
  assert.equal((await call(h, 'GET', '/api/v1/tracks')).statusCode, 401);
});
