import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { multipart, wavFile, wavPart } from '../helpers/audio.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, givenLabel, json } from '../helpers/harness.ts';

interface Ids {
  artist: number;
  release: number;
  track: number;
}

interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (ids: Ids) => string;
  body?: () => Promise<{
    payload: Buffer | string | Record<string, unknown>;
    headers?: Record<string, string>;
  }>;
}

const json_ = (payload: Record<string, unknown>) => async () => ({ payload });

const cover = async () => ({
  payload: await sharp({ create: { width: 1400, height: 1400, channels: 3, background: '#336699' } })
    .png()
    .toBuffer(),
  headers: { 'content-type': 'image/png' },
});

/** Every catalog route that names an object, with a body its schema accepts. */
const ROUTES: RouteCase[] = [
  { method: 'GET', path: (i) => `/api/v1/artists/${i.artist}` },
  { method: 'GET', path: (i) => `/api/v1/artists/${i.artist}/releases` },
  { method: 'PATCH', path: (i) => `/api/v1/artists/${i.artist}`, body: json_({ name: 'Taken Over' }) },
  { method: 'GET', path: (i) => `/api/v1/releases/${i.release}` },
  { method: 'PATCH', path: (i) => `/api/v1/releases/${i.release}`, body: json_({ title: 'Taken Over' }) },
  { method: 'GET', path: (i) => `/api/v1/releases/${i.release}/history` },
  { method: 'GET', path: (i) => `/api/v1/releases/${i.release}/dsp-status` },
  { method: 'POST', path: (i) => `/api/v1/releases/${i.release}/validate` },
  { method: 'PUT', path: (i) => `/api/v1/releases/${i.release}/cover`, body: cover },
  {
    method: 'POST',
    path: (i) => `/api/v1/releases/${i.release}/tracks`,
    body: async () => multipart([['title', 'Taken Over'], wavPart()]),
  },
  { method: 'GET', path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}` },
  {
    method: 'PATCH',
    path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}`,
    body: json_({ title: 'Taken Over' }),
  },
  {
    method: 'PUT',
    path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}/audio`,
    body: async () => ({ payload: wavFile(), headers: { 'content-type': 'audio/wav' } }),
  },
  { method: 'GET', path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}/lyrics` },
  {
    method: 'PUT',
    path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}/lyrics`,
    body: json_({ text: 'Taken' }),
  },
  { method: 'GET', path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}/credits` },
  {
    method: 'PUT',
    path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}/credits`,
    body: json_({ contributors: [{ name: 'X', role: 'Producer' }] }),
  },
  { method: 'DELETE', path: (i) => `/api/v1/releases/${i.release}/tracks/${i.track}` },
  { method: 'DELETE', path: (i) => `/api/v1/releases/${i.release}` },
  { method: 'GET', path: (i) => `/api/v1/tracks?release_id=${i.release}` },
];

async function snapshot(h: Awaited<ReturnType<typeof buildHarness>>, labelId: number) {
  const [artists, releases, tracks] = await Promise.all([
    h.ctx.db.selectFrom('artists').selectAll().where('label_id', '=', labelId).execute(),
    h.ctx.db.selectFrom('releases').selectAll().where('label_id', '=', labelId).execute(),
    h.ctx.db.selectFrom('tracks').selectAll().where('label_id', '=', labelId).execute(),
  ]);
  return { artists, releases, tracks };
}

test("every catalog route answers 404 for another label's ids and changes nothing of theirs", async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  const other = await givenLabel(h, { name: 'Other Label', plan: 'pro' });
  const theirArtist = await givenArtist(h, other.id, { name: 'Theirs' });
  const theirRelease = await givenRelease(h, other.id, { artist_id: theirArtist.id });
  const theirTrack = await givenTrack(h, other.id, theirRelease.id);
  const ownRelease = await givenRelease(h, label.id);
  const foreign: Ids = { artist: theirArtist.id, release: theirRelease.id, track: theirTrack.id };
  // Our own release with their track: the track must be found through the release it belongs to.
  const mixed: Ids = { artist: theirArtist.id, release: ownRelease.id, track: theirTrack.id };
  const before = await snapshot(h, other.id);
  for (const ids of [foreign, mixed]) {
    for (const route of ROUTES) {
      const path = route.path(ids);
      if (ids === mixed && !path.includes(`/tracks/${ids.track}`)) continue;
      const body = route.body ? await route.body() : null;
      const response = await call(h, route.method, path, {
        key,
        ...(body && { payload: body.payload, ...(body.headers && { headers: body.headers }) }),
      });
      const name = `${route.method} ${path}`;
      assert.equal(response.statusCode, 404, `${name}: ${response.body}`);
      const error = json(response) as { code: string; error: string };
      assert.equal(error.code, 'not_found', name);
      assert.match(error.error, /not found$/, name);
    }
  }
  assert.deepEqual(await snapshot(h, other.id), before);
});
