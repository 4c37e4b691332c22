import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

interface Lyrics {
  ok: true;
  text: string | null;
  lines: Array<{ time: number; text: string }>;
  lrc: string | null;
}

async function setup(t: TestContext) {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { type: 'album' });
  const track = await givenTrack(h, label.id, release.id);
  const path = `/api/v1/releases/${release.id}/tracks/${track.id}/lyrics`;
  return { h, label, key, release, track, path };
}

async function put(h: Harness, key: string, path: string, payload: object): Promise<Lyrics> {
  const response = await call(h, 'PUT', path, { key, payload });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as Lyrics;
}

function assertInvalid(response: LightMyRequestResponse, field: string): void {
  assert.equal(response.statusCode, 400, response.body);
  const body = json(response) as { code: string; field: string };
  assert.deepEqual({ code: body.code, field: body.field }, { code: 'invalid', field });
}

test('a track without lyrics answers text null, no lines and lrc null', async (t) => {
  const { h, key, path } = await setup(t);
  const response = await call(h, 'GET', path, { key });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), { ok: true, text: null, lines: [], lrc: null });
});

test('plain text is stored as is: no lines and no LRC, and it shows on the track card', async (t) => {
  const { h, key, path, release, track } = await setup(t);
  const body = await put(h, key, path, { text: 'Line one\r\nLine two\n' });
  assert.deepEqual(body, { ok: true, text: 'Line one\nLine two', lines: [], lrc: null });
  assert.deepEqual(json(await call(h, 'GET', path, { key })), body);
  const card = json(await call(h, 'GET', `/api/v1/releases/${release.id}/tracks/${track.id}`, { key })) as {
    track: { lyrics: unknown };
  };
  assert.deepEqual(card.track.lyrics, { text: 'Line one\nLine two', lines: [], lrc: null });
});

test('every response carrying the track carries its lyrics in all three forms', async (t) => {
  const { h, key, path, release, track } = await setup(t);
  const trackPath = `/api/v1/releases/${release.id}/tracks/${track.id}`;
  const lyricsOfTrack = async (method: 'GET' | 'PATCH', url: string, payload?: object) => {
    const response = await call(h, method, url, { key, ...(payload && { payload }) });
    assert.equal(response.statusCode, 200, response.body);
    return json(response) as {
      track?: { lyrics: unknown };
      release?: { tracks: Array<{ lyrics: unknown }> };
      tracks?: Array<{ lyrics: unknown }>;
    };
  };
  assert.equal((await lyricsOfTrack('GET', trackPath)).track?.lyrics, null);

  const { ok: _ok, ...forms } = await put(h, key, path, {
    lines: [
      { time: 1, text: 'Intro' },
      { time: 83.5, text: 'Hello' },
    ],
  });
  assert.deepEqual(forms, {
    text: 'Intro\nHello',
    lines: [
      { time: 1, text: 'Intro' },
      { time: 83.5, text: 'Hello' },
    ],
    lrc: '[00:01.00] Intro\n[01:23.50] Hello',
  });
  assert.deepEqual((await lyricsOfTrack('GET', trackPath)).track?.lyrics, forms);
  assert.deepEqual(
    (await lyricsOfTrack('GET', `/api/v1/releases/${release.id}`)).release?.tracks[0]?.lyrics,
    forms,
  );
  assert.deepEqual((await lyricsOfTrack('GET', '/api/v1/tracks')).tracks?.[0]?.lyrics, forms);
  assert.deepEqual((await lyricsOfTrack('PATCH', trackPath, { title: 'Renamed' })).track?.lyrics, forms);
  assert.deepEqual((await lyricsOfTrack('PATCH', trackPath, { lyrics: 'Plain again' })).track?.lyrics, {
    text: 'Plain again',
    lines: [],
    lrc: null,
  });
  assert.equal((await lyricsOfTrack('PATCH', trackPath, { lyrics: null })).track?.lyrics, null);
});

test('timed lines give LRC exactly (83.5 s is [01:23.50]) and plain text joined by newlines', async (t) => {
  const { h, key, path } = await setup(t);
  const lines = [
    { time: 12, text: 'First' },
    { time: 83.5, text: 'Hello' },
    { time: 90.07, text: '' },
    { time: 125.99, text: 'Last' },
  ];
  const body = await put(h, key, path, { lines });
  assert.deepEqual(body, {
    ok: true,
    text: 'First\nHello\n\nLast',
    lines,
    lrc: '[00:12.00] First\n[01:23.50] Hello\n[01:30.07]\n[02:05.99] Last',
  });
  assert.deepEqual(json(await call(h, 'GET', path, { key })), body);
});

test('LRC gives the same lines back, and round-trips through lines unchanged', async (t) => {
  const { h, key, path } = await setup(t);
  const lrc = '[00:01.00] Intro\n[01:23.50] Hello\n[10:00.01] Outro';
  const fromLrc = await put(h, key, path, { lrc });
  assert.deepEqual(fromLrc, {
    ok: true,
    text: 'Intro\nHello\nOutro',
    lines: [
      { time: 1, text: 'Intro' },
      { time: 83.5, text: 'Hello' },
      { time: 600.01, text: 'Outro' },
    ],
    lrc,
  });
  const fromLines = await put(h, key, path, { lines: fromLrc.lines });
  assert.equal(fromLines.lrc, lrc);
  const loose = await put(h, key, path, { lrc: '[ti:Night Drive]\r\n[00:02.5]  Late\r\n\r\n[00:01] Early' });
  assert.deepEqual(loose.lines, [
    { time: 1, text: 'Early' },
    { time: 2.5, text: 'Late' },
  ]);
  assert.equal(loose.lrc, '[00:01.00] Early\n[00:02.50] Late');
});

test('times are kept to centiseconds, the resolution of LRC', async (t) => {
  const { h, key, path } = await setup(t);
  const body = await put(h, key, path, { lines: [{ time: 83.456, text: 'Rounded' }] });
  assert.deepEqual(body.lines, [{ time: 83.46, text: 'Rounded' }]);
  assert.equal(body.lrc, '[01:23.46] Rounded');
});

test('plain text after timed lyrics drops the timing; an empty form clears the lyrics', async (t) => {
  const { h, key, path, release, track } = await setup(t);
  await put(h, key, path, { lrc: '[00:01.00] Timed' });
  const patched = await call(h, 'PATCH', `/api/v1/releases/${release.id}/tracks/${track.id}`, {
    key,
    payload: { lyrics: 'Untimed now' },
  });
  assert.equal(patched.statusCode, 200);
  assert.deepEqual(json(await call(h, 'GET', path, { key })), {
    ok: true,
    text: 'Untimed now',
    lines: [],
    lrc: null,
  });
  for (const payload of [{ text: '' }, { lines: [] }, { lrc: '' }]) {
    assert.deepEqual(await put(h, key, path, payload), { ok: true, text: null, lines: [], lrc: null });
  }
});

test('exactly one form is required; malformed LRC or lines are 400 with their field', async (t) => {
  const { h, key, path } = await setup(t);
  assertInvalid(await call(h, 'PUT', path, { key, payload: {} }), 'text');
  assertInvalid(await call(h, 'PUT', path, { key, payload: { text: 'a', lrc: '[00:01.00] a' } }), 'text');
  assertInvalid(await call(h, 'PUT', path, { key, payload: { lrc: 'no time tag' } }), 'lrc');
  assertInvalid(await call(h, 'PUT', path, { key, payload: { lrc: '[00:61.00] too late' } }), 'lrc');
  assertInvalid(
    await call(h, 'PUT', path, { key, payload: { lines: [{ time: 1, text: 'a\nb' }] } }),
    'lines',
  );
  assertInvalid(
    await call(h, 'PUT', path, { key, payload: { lines: [{ time: -1, text: 'a' }] } }),
    'lines.0.time',
  );
  assertInvalid(await call(h, 'PUT', path, { key, payload: { lines: [{ text: 'a' }] } }), 'lines.0.time');
  assertInvalid(await call(h, 'PUT', path, { key, payload: { html: '<p>' } }), 'html');
  const notJson = await call(h, 'PUT', path, { key, headers: { 'content-type': 'audio/wav' }, payload: 'x' });
  assert.equal(notJson.statusCode, 415);
  assert.deepEqual(json(await call(h, 'GET', path, { key })), { ok: true, text: null, lines: [], lrc: null });
});

test('lyrics change while the release is a draft or waits for moderation, and touch the release', async (t) => {
  const { h, key, label, release } = await setup(t);
  h.clock.advance(3000);
  await put(
    h,
    key,
    `/api/v1/releases/${release.id}/tracks/${(await givenTrack(h, label.id, release.id, { number: 2 })).id}/lyrics`,
    {
      text: 'x',
    },
  );
  const touched = await h.ctx.db
    .selectFrom('releases')
    .select('updated_at')
    .where('id', '=', release.id)
    .executeTakeFirstOrThrow();
  assert.equal(touched.updated_at, '2026-03-02T10:00:03.000Z');
  for (const [status, review, expected] of [
    ['submitting', 'pending', 200],
    ['live', 'approved', 409],
    ['submitted', 'approved', 409],
  ] as const) {
    const other = await givenRelease(h, label.id, {
      artist_id: release.artist_id,
      status,
      review_status: review,
    });
    const track = await givenTrack(h, label.id, other.id);
    const response = await call(h, 'PUT', `/api/v1/releases/${other.id}/tracks/${track.id}/lyrics`, {
      key,
      payload: { text: 'words' },
    });
    assert.equal(response.statusCode, expected, status);
  }
});

test("another label's track is 404; GET needs catalog:read and PUT catalog:write", async (t) => {
  const { h, key, path, release, track } = await setup(t);
  const other = await givenCaller(h);
  assert.equal((await call(h, 'GET', path, { key: other.key })).statusCode, 404);
  assert.equal((await call(h, 'PUT', path, { key: other.key, payload: { text: 'x' } })).statusCode, 404);
  assert.equal(
    (await call(h, 'GET', `/api/v1/releases/${release.id + 50}/tracks/${track.id}/lyrics`, { key }))
      .statusCode,
    404,
  );
  const reader = await givenCaller(h, { scopes: ['catalog:read'] });
  const refused = await call(h, 'PUT', path, { key: reader.key, payload: { text: 'x' } });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(json(refused), {
    error: 'This key lacks the scope catalog:write',
    code: 'forbidden',
    required_scope: 'catalog:write',
  });
  const writer = await givenCaller(h, { scopes: ['catalog:write'] });
  assert.equal((await call(h, 'GET', path, { key: writer.key })).statusCode, 403);
});
