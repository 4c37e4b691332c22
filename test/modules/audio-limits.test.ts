import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { multipart, type PcmShape, pcmWav, STEREO_CD, wavFile, wavPart } from '../helpers/audio.ts';
import { givenRelease } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

async function setup(t: TestContext) {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { type: 'album' });
  return { h, key, releaseId: release.id };
}

function upload(h: Harness, key: string, releaseId: number, wav: Buffer) {
  return call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key,
    ...multipart([['title', 'Night Drive'], wavPart(wav)]),
  });
}

/** A WAV of a 440 Hz tone: CD quality unless the shape says otherwise. */
function wav(shape: Partial<PcmShape>): Buffer {
  return wavFile({ ...STEREO_CD, seconds: 0.5, ...shape });
}

/** The same file with another bit depth written in its `fmt ` chunk (offset 34 of a plain PCM WAV). */
function declaringBitDepth(file: Buffer, bits: number): Buffer {
  const copy = Buffer.from(file);
  copy.writeUInt16LE(bits, 34);
  return copy;
}

/** Nothing of a refused upload stays: no temporary file, no stored audio, no track. */
async function assertNothingKept(h: Harness, key: string, releaseId: number): Promise<void> {
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'tmp')), [], 'media/tmp is empty');
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'audio')), [], 'no audio stored');
  const release = await call(h, 'GET', `/api/v1/releases/${releaseId}`, { key });
  assert.equal(release.statusCode, 200, release.body);
  assert.deepEqual((json(release) as { release: { tracks: unknown[] } }).release.tracks, [], 'no track');
}

test('audio at the edge of every limit is accepted, with the facts read from it', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const edges: Array<[Partial<PcmShape>, { sample_rate: number; channels: number; bit_depth: number }]> = [
    [{ sampleRate: 8_000 }, { sample_rate: 8_000, channels: 2, bit_depth: 16 }],
    [{ sampleRate: 384_000 }, { sample_rate: 384_000, channels: 2, bit_depth: 16 }],
    [{ channels: 8 }, { sample_rate: 44_100, channels: 8, bit_depth: 16 }],
    [{ bitDepth: 8 }, { sample_rate: 44_100, channels: 2, bit_depth: 8 }],
    [{ bitDepth: 32 }, { sample_rate: 44_100, channels: 2, bit_depth: 32 }],
  ];
  for (const [shape, facts] of edges) {
    const file = wav(shape);
    const response = await upload(h, key, releaseId, file);
    assert.equal(response.statusCode, 201, `${JSON.stringify(shape)}: ${response.body}`);
    assert.deepEqual((json(response) as { track: { audio: unknown } }).track.audio, {
      filename: 'night-drive.wav',
      bytes: file.length,
      duration_sec: 0.5,
      ...facts,
    });
  }
});

test('audio beyond each limit is refused with the offending value, and nothing is kept', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const refused: Array<[string, Buffer, string]> = [
    ['7999 Hz', wav({ sampleRate: 7_999 }), "The audio's sample rate 7999 Hz is outside 8000-384000 Hz"],
    [
      '384001 Hz',
      wav({ sampleRate: 384_001 }),
      "The audio's sample rate 384001 Hz is outside 8000-384000 Hz",
    ],
    ['9 channels', wav({ channels: 9 }), 'The audio has 9 channels; at most 8 are accepted'],
    ['4 bits', declaringBitDepth(wav({}), 4), "The audio's bit depth 4 bits is outside 8-32 bits"],
    ['0.49 s', wav({ seconds: 0.49 }), 'The audio lasts 0.49 s; it must last at least 0.5 s'],
  ];
  for (const [name, file, message] of refused) {
    const response = await upload(h, key, releaseId, file);
    assert.equal(response.statusCode, 400, `${name}: ${response.body}`);
    assert.deepEqual(json(response), { error: message, code: 'invalid', field: 'audio' }, name);
  }
  await assertNothingKept(h, key, releaseId);
});

test('the 100 MHz WAV of random bytes from the review is refused at upload', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const header = pcmWav({ sampleRate: 100_000_000, channels: 2, bitDepth: 16 }, []);
  const noise = randomBytes(1024 * 1024);
  const file = Buffer.concat([header, noise]);
  // The RIFF size, and the size of the data chunk that ends the header, now count the random bytes.
  file.writeUInt32LE(file.length - 8, 4);
  file.writeUInt32LE(noise.length, header.length - 4);
  const response = await upload(h, key, releaseId, file);
  assert.equal(response.statusCode, 400, response.body);
  assert.deepEqual(json(response), {
    error: "The audio's sample rate 100000000 Hz is outside 8000-384000 Hz",
    code: 'invalid',
    field: 'audio',
  });
  await assertNothingKept(h, key, releaseId);
});

test('replacing audio with a refused file keeps the track and its audio as they were', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const created = await upload(h, key, releaseId, wav({}));
  assert.equal(created.statusCode, 201, created.body);
  const { track } = json(created) as { track: { id: number } };
  const path = `/api/v1/releases/${releaseId}/tracks/${track.id}`;
  const before = await call(h, 'GET', path, { key });
  const replaced = await call(h, 'PUT', `${path}/audio`, {
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: wav({ channels: 9 }),
  });
  assert.equal(replaced.statusCode, 400, replaced.body);
  assert.deepEqual(json(replaced), {
    error: 'The audio has 9 channels; at most 8 are accepted',
    code: 'invalid',
    field: 'audio',
  });
  assert.deepEqual(json(await call(h, 'GET', path, { key })), json(before));
  assert.deepEqual(await filesUnder(join(h.dataDir, 'media', 'tmp')), [], 'media/tmp is empty');
  assert.equal((await filesUnder(join(h.dataDir, 'media', 'audio'))).length, 1, 'the first audio stays');
});
