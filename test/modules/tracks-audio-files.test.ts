import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { flacFile, MONO_22K, mp3File, multipart, STEREO_CD, wavFile, wavPart } from '../helpers/audio.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { call, givenCaller, json } from '../helpers/harness.ts';
import { mediaPath } from '../helpers/media.ts';
import {
  assertInvalid,
  assertStored,
  createdTrack,
  type ErrorReply,
  filesUnder,
  releaseUpdatedAt,
  setup,
  sha256,
  type TrackCard,
} from '../helpers/tracks.ts';

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
