import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { mediaPath } from '../../src/modules/media/media.storage.ts';
import {
  type FormEntry,
  flacFile,
  MONO_22K,
  mp3File,
  multipart,
  oversizedUpload,
  STEREO_CD,
  wavFile,
  wavPart,
} from '../helpers/audio.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

interface TrackCard {
  id: number;
  release_id: number;
  number: number;
  title: string;
  isrc: string | null;
  language: string | null;
  preview_start_sec: number | null;
  writers: Array<{ name: string; roles: string[] }>;
  contributors: Array<{ name: string; role: string }>;
  ai: { service: string; elements: string[] } | null;
  audio: {
    filename: string;
    bytes: number;
    duration_sec: number;
    sample_rate: number;
    bit_depth: number | null;
    channels: number;
  } | null;
  updated_at: string;
}

interface ErrorReply {
  code: string;
  field?: string;
  required_scope?: string;
}

function sha256(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex');
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Nothing half-written stays behind, and only the expected audio files are stored. */
async function assertStored(h: Harness, audioFiles: number): Promise<void> {
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'tmp')), [], 'media/tmp is empty');
  assert.equal(
    (await filesUnder(join(h.dataDir, 'media', 'audio'))).length,
    audioFiles,
    'stored audio files',
  );
}

async function setup(t: TestContext, release: Parameters<typeof givenRelease>[2] = { type: 'album' }) {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const { id: releaseId, artist_id: artistId } = await givenRelease(h, label.id, release);
  return { h, label, key, releaseId, artistId };
}

function postTrack(h: Harness, key: string, releaseId: number, entries: FormEntry[]) {
  return call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, { key, ...multipart(entries) });
}

async function createdTrack(
  h: Harness,
  key: string,
  releaseId: number,
  entries: FormEntry[],
): Promise<TrackCard> {
  const response = await postTrack(h, key, releaseId, entries);
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { track: TrackCard }).track;
}

function assertInvalid(response: LightMyRequestResponse, field: string): void {
  assert.equal(response.statusCode, 400, response.body);
  assert.deepEqual(
    { code: (json(response) as ErrorReply).code, field: (json(response) as ErrorReply).field },
    {
      code: 'invalid',
      field,
    },
  );
}

async function releaseUpdatedAt(h: Harness, releaseId: number): Promise<string> {
  const row = await h.ctx.db
    .selectFrom('releases')
    .select('updated_at')
    .where('id', '=', releaseId)
    .executeTakeFirstOrThrow();
  return row.updated_at;
}

test('POST /releases/{id}/tracks stores a WAV streamed to disk and answers 201 with the whole card', async (t) => {
  const { h, key, releaseId } = await setup(t);
  h.clock.advance(60_000);
  const wav = wavFile(STEREO_CD);
  const response = await postTrack(h, key, releaseId, [
    ['title', '  Night Drive '],
    ['version', 'Extended Mix'],
    ['isrc', 'us-rc1-76-07839'],
    wavPart(wav, 'night-drive.wav'),
    ['explicit', 'true'],
    ['language', 'EN'],
    ['instrumental', 'false'],
    ['lyrics', 'First line\r\nSecond line\n'],
    ['writers', JSON.stringify([{ name: 'Mira Vale', roles: ['Composer', 'автор слов'] }])],
    ['contributors', JSON.stringify([{ name: 'Ivan Petrov', role: 'Звукорежиссер сведения' }])],
    ['featured', JSON.stringify([{ name: 'Kato' }])],
    ['version_type', 'remix'],
    ['preview_start_sec', '0.5'],
    ['ai_service', 'Suno'],
    ['ai_elements', 'vocals, Lyrics'],
  ]);
  assert.equal(response.statusCode, 201, response.body);
  const { track } = json(response) as { track: TrackCard };
  assert.equal(
    response.headers.location,
    `https://api.labeldesk.test/api/v1/releases/${releaseId}/tracks/${track.id}`,
  );
  assert.deepEqual(track, {
    id: track.id,
    release_id: releaseId,
    number: 1,
    title: 'Night Drive',
    version: 'Extended Mix',
    version_type: 'remix',
    isrc: 'USRC17607839',
    explicit: true,
    instrumental: false,
    language: 'en',
    preview_start_sec: 0.5,
    lyrics: { text: 'First line\nSecond line', lines: [], lrc: null },
    writers: [{ name: 'Mira Vale', roles: ['Composer', 'Lyricist'] }],
    contributors: [{ name: 'Ivan Petrov', role: 'Mixing Engineer' }],
    featured: [{ name: 'Kato' }],
    audio: {
      filename: 'night-drive.wav',
      bytes: wav.length,
      duration_sec: 1,
      sample_rate: 44100,
      bit_depth: 16,
      channels: 2,
    },
    ai: { service: 'Suno', elements: ['vocals', 'lyrics'] },
    created_at: '2026-03-02T10:01:00.000Z',
    updated_at: '2026-03-02T10:01:00.000Z',
  });
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'audio')), [
    mediaPath(h.dataDir, 'audio', sha256(wav), 'wav'),
  ]);
  await assertStored(h, 1);
  const row = await h.ctx.db
    .selectFrom('tracks')
    .selectAll()
    .where('id', '=', track.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.audio_hash, sha256(wav));
  assert.equal(row.audio_format, 'wav');
  assert.equal(await releaseUpdatedAt(h, releaseId), '2026-03-02T10:01:00.000Z');

  const read = await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/${track.id}`, { key });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(json(read), { track });
});

test('a mono 22 kHz WAV and a FLAC are accepted and described; numbers follow the order of addition', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const mono = await createdTrack(h, key, releaseId, [
    wavPart(wavFile(MONO_22K), 'mono.wav'),
    ['title', 'Mono'],
  ]);
  assert.equal(mono.number, 1);
  assert.deepEqual(mono.audio, {
    filename: 'mono.wav',
    bytes: wavFile(MONO_22K).length,
    duration_sec: 2,
    sample_rate: 22050,
    bit_depth: 16,
    channels: 1,
  });
  const flac = flacFile(STEREO_CD);
  const lossless = await createdTrack(h, key, releaseId, [
    ['title', 'Lossless'],
    { filename: 'lossless.flac', contentType: 'audio/flac', content: flac },
  ]);
  assert.equal(lossless.number, 2);
  assert.deepEqual(lossless.audio, {
    filename: 'lossless.flac',
    bytes: flac.length,
    duration_sec: 1,
    sample_rate: 44100,
    bit_depth: 16,
    channels: 2,
  });
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'audio', sha256(flac).slice(0, 2))), [
    mediaPath(h.dataDir, 'audio', sha256(flac), 'flac'),
  ]);
  const extensible = await createdTrack(h, key, releaseId, [
    ['title', 'Extensible'],
    wavPart(wavFile(STEREO_CD, 'extensible')),
  ]);
  assert.equal(extensible.audio?.sample_rate, 44100);
  assert.equal(extensible.number, 3);
});

test('audio is judged by content: an MP3 named .wav, float WAV, text or an empty file is refused, nothing kept', async (t) => {
  const { h, key, releaseId } = await setup(t);
  for (const content of [
    mp3File(),
    wavFile(STEREO_CD, 'float'),
    Buffer.from('not audio at all'),
    Buffer.alloc(0),
  ]) {
    assertInvalid(
      await postTrack(h, key, releaseId, [['title', 'Fake'], wavPart(content, 'fake.wav')]),
      'audio',
    );
  }
  assertInvalid(
    await postTrack(h, key, releaseId, [
      ['title', 'Fake'],
      { filename: 'fake.flac', contentType: 'audio/flac', content: mp3File() },
    ]),
    'audio',
  );
  await assertStored(h, 0);
  assert.equal((await h.ctx.db.selectFrom('tracks').select('id').execute()).length, 0);
});

test('the audio file and the title are required; the form has one file and known fields only', async (t) => {
  const { h, key, releaseId } = await setup(t);
  assertInvalid(await postTrack(h, key, releaseId, [['title', 'No audio']]), 'audio');
  assertInvalid(
    await postTrack(h, key, releaseId, [
      ['title', 'Text'],
      ['audio', 'abc'],
    ]),
    'audio',
  );
  assertInvalid(await postTrack(h, key, releaseId, [wavPart()]), 'title');
  assertInvalid(await postTrack(h, key, releaseId, [wavPart(), ['title', '   ']]), 'title');
  assertInvalid(await postTrack(h, key, releaseId, [['title', 'x'], wavPart(), ['mood', 'happy']]), 'mood');
  assertInvalid(await postTrack(h, key, releaseId, [['title', 'x'], ['title', 'y'], wavPart()]), 'title');
  assertInvalid(await postTrack(h, key, releaseId, [['title', 'x'], wavPart(), wavPart()]), 'audio');
  assertInvalid(
    await postTrack(h, key, releaseId, [['title', 'x'], { ...wavPart(), field: 'cover' }]),
    'cover',
  );
  await assertStored(h, 0);

  const asJson = await call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key,
    payload: { title: 'x' },
  });
  assert.equal(asJson.statusCode, 415);
  assert.equal((json(asJson) as ErrorReply).code, 'unsupported_media_type');
  const broken = multipart([['title', 'x'], wavPart()]);
  const cut = await call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key,
    headers: broken.headers,
    payload: broken.payload.subarray(0, broken.payload.length - 200),
  });
  assertInvalid(cut, 'body');
  await assertStored(h, 0);
});

test('metadata is checked field by field with 400 invalid and the field', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const cases: Array<[FormEntry[], string]> = [
    [[['isrc', 'US-RC1-76-0783']], 'isrc'],
    [[['isrc', 'USRC1X607839']], 'isrc'],
    [[['language', 'xx']], 'language'],
    [[['language', 'eng']], 'language'],
    [[['preview_start_sec', '-1']], 'preview_start_sec'],
    [[['preview_start_sec', 'soon']], 'preview_start_sec'],
    [[['preview_start_sec', '1']], 'preview_start_sec'],
    [[['explicit', 'maybe']], 'explicit'],
    [[['writers', '[{"name": "Mira", "roles": ["Composer"]']], 'writers'],
    [[['writers', '{"name": "Mira"}']], 'writers'],
    [[['writers', JSON.stringify([{ name: 'Mira', roles: ['Producer'] }])]], 'writers'],
    [[['writers', JSON.stringify([{ name: 'Mira', roles: [] }])]], 'writers'],
    [[['contributors', 'not json']], 'contributors'],
    [[['contributors', JSON.stringify([{ name: 'Ivan', role: 'Tambourine Whisperer' }])]], 'contributors'],
    [[['contributors', JSON.stringify([{ name: 'Ivan', role: 'Composer' }])]], 'contributors'],
    [[['contributors', JSON.stringify([{ name: ' ', role: 'Producer' }])]], 'contributors'],
    [[['featured', JSON.stringify([{ name: '' }])]], 'featured'],
    [[['ai_service', 'Suno']], 'ai_elements'],
    [[['ai_elements', 'vocals']], 'ai_service'],
    [
      [
        ['ai_service', 'Suno'],
        ['ai_elements', 'vocals,drums'],
      ],
      'ai_elements',
    ],
    [
      [
        ['ai_service', 'Suno'],
        ['ai_elements', '["vocals", 5]'],
      ],
      'ai_elements',
    ],
  ];
  for (const [fields, field] of cases) {
    assertInvalid(await postTrack(h, key, releaseId, [['title', 'T'], wavPart(), ...fields]), field);
  }
  await assertStored(h, 0);
});

test('local-language role names are stored by their canonical name; an empty AI disclosure is no mark', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [
    ['title', 'Roles'],
    wavPart(),
    [
      'contributors',
      JSON.stringify([
        { name: 'Анна', role: 'ВОКАЛИСТ' },
        { name: 'Ivan', role: 'producer' },
      ]),
    ],
    ['writers', JSON.stringify([{ name: 'Пётр', roles: ['Композитор', 'Composer'] }])],
    ['ai_service', ''],
    ['ai_elements', ''],
  ]);
  assert.deepEqual(track.contributors, [
    { name: 'Анна', role: 'Vocalist' },
    { name: 'Ivan', role: 'Producer' },
  ]);
  assert.deepEqual(track.writers, [{ name: 'Пётр', roles: ['Composer'] }]);
  assert.equal(track.ai, null);
  const ai = await createdTrack(h, key, releaseId, [
    ['title', 'AI'],
    wavPart(),
    ['ai_service', 'Suno'],
    ['ai_elements', '["production", "vocals", "production"]'],
  ]);
  assert.deepEqual(ai.ai, { service: 'Suno', elements: ['production', 'vocals'] });
});

test('a single holds at most three tracks: the fourth is 409 conflict before the upload is read', async (t) => {
  const { h, key, releaseId } = await setup(t, { type: 'single' });
  for (const title of ['One', 'Two', 'Three'])
    await createdTrack(h, key, releaseId, [['title', title], wavPart()]);
  const fourth = await postTrack(h, key, releaseId, [['title', 'Four'], wavPart(wavFile(MONO_22K))]);
  assert.equal(fourth.statusCode, 409);
  assert.equal((json(fourth) as ErrorReply).code, 'conflict');
  await assertStored(h, 1);
});

test('tracks are added to drafts only', async (t) => {
  const { h, key, label, artistId } = await setup(t);
  for (const [status, review] of [
    ['submitting', 'pending'],
    ['submitted', 'approved'],
    ['live', 'approved'],
  ] as const) {
    const release = await givenRelease(h, label.id, { artist_id: artistId, status, review_status: review });
    const response = await postTrack(h, key, release.id, [['title', 'Late'], wavPart()]);
    assert.equal(response.statusCode, 409, status);
    assert.equal((json(response) as ErrorReply).code, 'conflict');
  }
  await assertStored(h, 0);
});

test('audio over 200 MB is 413 payload_too_large and leaves nothing on disk', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const response = await call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key,
    ...oversizedUpload(200 * 1024 * 1024 + 1),
  });
  assert.equal(response.statusCode, 413);
  assert.equal((json(response) as ErrorReply).code, 'payload_too_large');
  await assertStored(h, 0);
  const raw = await call(h, 'PUT', `/api/v1/releases/${releaseId}/tracks/1/audio`, {
    key,
    headers: { 'content-type': 'audio/wav', 'content-length': String(200 * 1024 * 1024 + 1) },
    payload: Buffer.alloc(16),
  });
  assert.equal(raw.statusCode, 404, 'the track is looked up before the body is read');
});

test("another label's release, or a track of another release, is 404; scopes are enforced", async (t) => {
  const { h, key, releaseId, label, artistId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [['title', 'Mine'], wavPart()]);
  const other = await givenCaller(h);
  const otherRelease = await givenRelease(h, other.label.id);
  const sibling = await givenRelease(h, label.id, { artist_id: artistId });
  const paths = [
    ['GET', `/api/v1/releases/${otherRelease.id}/tracks/${track.id}`],
    ['GET', `/api/v1/releases/${sibling.id}/tracks/${track.id}`],
    ['GET', `/api/v1/releases/${releaseId}/tracks/${track.id + 100}`],
  ] as const;
  for (const [method, path] of paths) {
    assert.equal((await call(h, method, path, { key })).statusCode, 404, path);
  }
  assertInvalid(await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/99999999999`, { key }), 'trackId');
  const foreign = `/api/v1/releases/${releaseId}/tracks/${track.id}`;
  assert.equal((await call(h, 'GET', foreign, { key: other.key })).statusCode, 404);
  assert.equal(
    (await call(h, 'PATCH', foreign, { key: other.key, payload: { title: 'x' } })).statusCode,
    404,
  );
  assert.equal((await call(h, 'DELETE', foreign, { key: other.key })).statusCode, 404);
  const wav = multipart([wavPart()]);
  assert.equal((await call(h, 'PUT', `${foreign}/audio`, { key: other.key, ...wav })).statusCode, 404);
  assert.equal((await postTrack(h, other.key, releaseId, [['title', 'x'], wavPart()])).statusCode, 404);
  await assertStored(h, 1);

  const reader = await call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key: (await givenCaller(h, { scopes: ['catalog:read'] })).key,
    ...multipart([['title', 'x'], wavPart()]),
  });
  assert.equal(reader.statusCode, 403);
  assert.deepEqual(
    { code: (json(reader) as ErrorReply).code, scope: (json(reader) as ErrorReply).required_scope },
    { code: 'forbidden', scope: 'catalog:write' },
  );
  const writerOnly = await givenCaller(h, { scopes: ['catalog:write'] });
  const read = await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/${track.id}`, {
    key: writerOnly.key,
  });
  assert.equal(read.statusCode, 403);
  assert.equal((json(read) as ErrorReply).required_scope, 'catalog:read');
});

test('PATCH edits metadata, checks it like POST, and touches the release', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [
    ['title', 'Draft'],
    wavPart(),
    ['isrc', 'USRC17607839'],
  ]);
  const path = `/api/v1/releases/${releaseId}/tracks/${track.id}`;
  h.clock.advance(5_000);
  const response = await call(h, 'PATCH', path, {
    key,
    payload: {
      title: 'Final',
      isrc: null,
      language: 'ru',
      preview_start_sec: 0.25,
      contributors: [{ name: 'Ivan', role: 'Продюсер' }],
      ai_service: 'Udio',
      ai_elements: ['instrumentation'],
      explicit: true,
    },
  });
  assert.equal(response.statusCode, 200, response.body);
  const patched = (json(response) as { track: TrackCard }).track;
  assert.deepEqual(
    {
      title: patched.title,
      isrc: patched.isrc,
      language: patched.language,
      preview: patched.preview_start_sec,
      contributors: patched.contributors,
      ai: patched.ai,
      updated_at: patched.updated_at,
    },
    {
      title: 'Final',
      isrc: null,
      language: 'ru',
      preview: 0.25,
      contributors: [{ name: 'Ivan', role: 'Producer' }],
      ai: { service: 'Udio', elements: ['instrumentation'] },
      updated_at: '2026-03-02T10:00:05.000Z',
    },
  );
  assert.equal(await releaseUpdatedAt(h, releaseId), '2026-03-02T10:00:05.000Z');
  const cleared = await call(h, 'PATCH', path, { key, payload: { ai_service: null, ai_elements: [] } });
  assert.equal((json(cleared) as { track: TrackCard }).track.ai, null);

  const bad: Array<[Record<string, unknown>, string]> = [
    [{ isrc: 'nope' }, 'isrc'],
    [{ language: 'zz' }, 'language'],
    [{ preview_start_sec: 1 }, 'preview_start_sec'],
    [{ contributors: [{ name: 'X', role: 'Juggler' }] }, 'contributors'],
    [{ ai_service: 'Suno' }, 'ai_elements'],
    [{ ai_elements: ['vocals'] }, 'ai_service'],
    [{ title: '  ' }, 'title'],
    [{ number: 2 }, 'number'],
    [{ colour: 'red' }, 'colour'],
    [{}, 'body'],
  ];
  for (const [payload, field] of bad) assertInvalid(await call(h, 'PATCH', path, { key, payload }), field);
});

test('PATCH number moves a track and renumbers the others 1..n', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const ids: number[] = [];
  for (const title of ['A', 'B', 'C', 'D'])
    ids.push((await createdTrack(h, key, releaseId, [['title', title], wavPart()])).id);
  const order = async () =>
    (
      await h.ctx.db
        .selectFrom('tracks')
        .select(['title', 'number'])
        .where('release_id', '=', releaseId)
        .orderBy('number')
        .execute()
    ).map((row) => `${row.number}${row.title}`);
  const move = (index: number, number: number) =>
    call(h, 'PATCH', `/api/v1/releases/${releaseId}/tracks/${ids[index]}`, { key, payload: { number } });

  assert.equal((json(await move(3, 1)) as { track: TrackCard }).track.number, 1);
  assert.deepEqual(await order(), ['1D', '2A', '3B', '4C']);
  await move(3, 3);
  assert.deepEqual(await order(), ['1A', '2B', '3D', '4C']);
  await move(1, 2);
  assert.deepEqual(await order(), ['1A', '2B', '3D', '4C']);
  assertInvalid(await move(0, 5), 'number');
  assertInvalid(await move(0, 0), 'number');
  assert.deepEqual(await order(), ['1A', '2B', '3D', '4C']);
});

test('metadata and audio change while draft or waiting for moderation; afterwards 409', async (t) => {
  const { h, key, label, artistId } = await setup(t);
  const cases = [
    ['draft', null, 200],
    ['submitting', 'pending', 200],
    ['submitting', 'approved', 409],
    ['submitted', 'approved', 409],
    ['live', 'approved', 409],
  ] as const;
  for (const [status, review, expected] of cases) {
    const release = await givenRelease(h, label.id, { artist_id: artistId, status, review_status: review });
    const track = await givenTrack(h, label.id, release.id);
    const path = `/api/v1/releases/${release.id}/tracks/${track.id}`;
    const patched = await call(h, 'PATCH', path, { key, payload: { title: 'Renamed' } });
    assert.equal(patched.statusCode, expected, `PATCH ${status}/${review}`);
    const replaced = await call(h, 'PUT', `${path}/audio`, { key, ...multipart([wavPart()]) });
    assert.equal(replaced.statusCode, expected, `PUT audio ${status}/${review}`);
    if (expected === 409) assert.equal((json(replaced) as ErrorReply).code, 'conflict');
  }
  await assertStored(h, 1);
});

test('PUT …/audio replaces the audio (multipart or raw), and removes the old file only when unreferenced', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [['title', 'T'], wavPart(wavFile(STEREO_CD))]);
  const path = `/api/v1/releases/${releaseId}/tracks/${track.id}`;
  await call(h, 'PATCH', path, { key, payload: { preview_start_sec: 0.75 } });

  const mono = wavFile(MONO_22K);
  h.clock.advance(1000);
  const raw = await call(h, 'PUT', `${path}/audio`, {
    key,
    headers: { 'content-type': 'audio/x-wav', 'content-disposition': 'attachment; filename="take 2.wav"' },
    payload: mono,
  });
  assert.equal(raw.statusCode, 200, raw.body);
  const replaced = (json(raw) as { track: TrackCard }).track;
  assert.deepEqual(replaced.audio, {
    filename: 'take 2.wav',
    bytes: mono.length,
    duration_sec: 2,
    sample_rate: 22050,
    bit_depth: 16,
    channels: 1,
  });
  assert.equal(replaced.preview_start_sec, 0.75);
  assert.equal(await releaseUpdatedAt(h, releaseId), '2026-03-02T10:00:01.000Z');
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'audio')), [
    mediaPath(h.dataDir, 'audio', sha256(mono), 'wav'),
  ]);

  // A sandbox copy (another workspace's row) shares the file: replacing here must keep it.
  const other = await givenCaller(h);
  const copy = await givenRelease(h, other.label.id);
  await givenTrack(h, other.label.id, copy.id, { audio_hash: sha256(mono), audio_format: 'wav' });
  const short = wavFile({ ...STEREO_CD, seconds: 0.5 });
  const flac = flacFile({ ...STEREO_CD, seconds: 0.5 });
  const viaForm = await call(h, 'PUT', `${path}/audio`, {
    key,
    ...multipart([{ filename: 'short.flac', contentType: 'audio/flac', content: flac }]),
  });
  assert.equal(viaForm.statusCode, 200, viaForm.body);
  const shorter = (json(viaForm) as { track: TrackCard }).track;
  assert.equal(shorter.audio?.duration_sec, 0.5);
  assert.equal(shorter.preview_start_sec, null, 'a preview start beyond the new audio is cleared');
  const stored = await filesUnder(join(h.dataDir, 'media', 'audio'));
  assert.deepEqual(
    stored.sort(),
    [
      mediaPath(h.dataDir, 'audio', sha256(flac), 'flac'),
      mediaPath(h.dataDir, 'audio', sha256(mono), 'wav'),
    ].sort(),
  );

  const asFlac = await call(h, 'PUT', `${path}/audio`, {
    key,
    headers: { 'content-type': 'audio/flac' },
    payload: short,
  });
  assert.equal(asFlac.statusCode, 200, 'the content decides, not the declared type');
  assert.equal((json(asFlac) as { track: TrackCard }).track.audio?.filename, 'audio.wav');

  assertInvalid(
    await call(h, 'PUT', `${path}/audio`, {
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: mp3File(),
    }),
    'audio',
  );
  const mpeg = await call(h, 'PUT', `${path}/audio`, {
    key,
    headers: { 'content-type': 'audio/mpeg' },
    payload: mp3File(),
  });
  assert.equal(mpeg.statusCode, 415);
  assertInvalid(await call(h, 'PUT', `${path}/audio`, { key, ...multipart([['title', 'x']]) }), 'title');
  assertInvalid(await call(h, 'PUT', `${path}/audio`, { key, ...multipart([]) }), 'audio');
  await assertStored(h, 2);
  assert.deepEqual(
    (await filesUnder(join(h.dataDir, 'media', 'audio'))).sort(),
    [
      mediaPath(h.dataDir, 'audio', sha256(short), 'wav'),
      mediaPath(h.dataDir, 'audio', sha256(mono), 'wav'),
    ].sort(),
    'the FLAC went when the WAV replaced it; the shared file stays',
  );
});

test('DELETE removes a draft track, renumbers the rest and removes its file when unreferenced', async (t) => {
  const { h, key, releaseId, label, artistId } = await setup(t);
  const shared = wavFile(STEREO_CD);
  const a = await createdTrack(h, key, releaseId, [['title', 'A'], wavPart(shared)]);
  const b = await createdTrack(h, key, releaseId, [['title', 'B'], wavPart(wavFile(MONO_22K))]);
  const c = await createdTrack(h, key, releaseId, [['title', 'C'], wavPart(shared)]);
  h.clock.advance(2000);
  const deleted = await call(h, 'DELETE', `/api/v1/releases/${releaseId}/tracks/${b.id}`, { key });
  assert.equal(deleted.statusCode, 200);
  assert.deepEqual(json(deleted), { ok: true });
  assert.equal(await releaseUpdatedAt(h, releaseId), '2026-03-02T10:00:02.000Z');
  const after = await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/${c.id}`, { key });
  assert.equal((json(after) as { track: TrackCard }).track.number, 2);
  assert.equal(
    (await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/${b.id}`, { key })).statusCode,
    404,
  );
  await assertStored(h, 1);
  await call(h, 'DELETE', `/api/v1/releases/${releaseId}/tracks/${a.id}`, { key });
  await assertStored(h, 1);
  assert.equal(
    (
      json(await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/${c.id}`, { key })) as {
        track: TrackCard;
      }
    ).track.number,
    1,
  );
  await call(h, 'DELETE', `/api/v1/releases/${releaseId}/tracks/${c.id}`, { key });
  await assertStored(h, 0);

  const waiting = await givenRelease(h, label.id, {
    artist_id: artistId,
    status: 'submitting',
    review_status: 'pending',
  });
  const kept = await givenTrack(h, label.id, waiting.id);
  const refused = await call(h, 'DELETE', `/api/v1/releases/${waiting.id}/tracks/${kept.id}`, { key });
  assert.equal(refused.statusCode, 409);
  assert.equal((json(refused) as ErrorReply).code, 'conflict');
});

test('an upload repeated with its Idempotency-Key is replayed; a different upload with that key is 422', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const send = (entries: FormEntry[]) => {
    const form = multipart(entries);
    return call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
      key,
      payload: form.payload,
      headers: { ...form.headers, 'idempotency-key': 'upload-1' },
    });
  };
  const first = await send([['title', 'Once'], wavPart()]);
  assert.equal(first.statusCode, 201);
  const again = await send([['title', 'Once'], wavPart()]);
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, first.body);
  const different = await send([['title', 'Once'], wavPart(wavFile(MONO_22K))]);
  assert.equal(different.statusCode, 422);
  assert.equal((json(different) as { code: string }).code, 'idempotency_mismatch');
  const card = json(await call(h, 'GET', `/api/v1/releases/${releaseId}`, { key })) as {
    release: { tracks_count: number };
  };
  assert.equal(card.release.tracks_count, 1, 'the track was added once');
});

test('JSON bodies are taken as sent: PATCH preview_start_sec 0 keeps 0, null clears it, "0" is refused', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [
    ['title', 'Zero'],
    ['preview_start_sec', '0.5'],
    wavPart(),
  ]);
  const patch = (payload: Record<string, unknown>) =>
    call(h, 'PATCH', `/api/v1/releases/${releaseId}/tracks/${track.id}`, { key, payload });
  let response = await patch({ preview_start_sec: 0 });
  assert.equal(response.statusCode, 200);
  assert.equal((json(response) as { track: TrackCard }).track.preview_start_sec, 0);
  response = await patch({ preview_start_sec: null });
  assert.equal((json(response) as { track: TrackCard }).track.preview_start_sec, null);
  response = await patch({ preview_start_sec: '0' });
  assertInvalid(response, 'preview_start_sec');
});

test('a raw audio body on POST .../tracks is 415 also with an Idempotency-Key; a NUL in a form field is 400', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const raw = await call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key,
    payload: wavFile(),
    headers: { 'content-type': 'audio/wav', 'idempotency-key': 'raw-1' },
  });
  assert.equal(raw.statusCode, 415);
  assert.equal((json(raw) as { code: string }).code, 'unsupported_media_type');
  const nul = await postTrack(h, key, releaseId, [['title', 'Bad\u0000Title'], wavPart()]);
  assertInvalid(nul, 'title');
  await assertStored(h, 0);
});
