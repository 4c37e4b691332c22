import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
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
import { call, json } from '../helpers/harness.ts';
import { mediaPath } from '../helpers/media.ts';
import {
  assertInvalid,
  assertStored,
  createdTrack,
  type ErrorReply,
  filesUnder,
  postTrack,
  releaseUpdatedAt,
  setup,
  sha256,
  type TrackCard,
} from '../helpers/tracks.ts';

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
