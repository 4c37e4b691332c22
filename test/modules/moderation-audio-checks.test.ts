import assert from 'node:assert/strict';
import { open, rm } from 'node:fs/promises';
import { test } from 'node:test';
import { decodeFlacWindow, readFlacStream } from '../../src/modules/moderation/moderation.flac.ts';
import { MONO_22K, riffChunk, wavFile } from '../helpers/audio.ts';
import { mediaPath } from '../helpers/media.ts';
import {
  findingsOf,
  givenCleanRelease,
  lowPassed,
  setup,
  sha256,
  stereoFlac,
  stereoWav,
  storeFile,
  toInteger,
  whiteNoise,
} from '../helpers/moderation.ts';

/** A RIFF INFO list naming the software that wrote the file, as converters leave it. */
function softwareTag(software: string): Buffer {
  return riffChunk(
    'LIST',
    Buffer.concat([Buffer.from('INFO', 'latin1'), riffChunk('ISFT', Buffer.from(`${software}\0`, 'latin1'))]),
  );
}

const LOSSLESS = 'upload a WAV or FLAC exported from the lossless master';

test('a track without audio, or whose audio file is gone, is reported', async (t) => {
  const { h, labelId } = await setup(t);
  const gone = stereoWav(whiteNoise(21));
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [
      {},
      {
        row: {
          audio_hash: null,
          audio_format: null,
          audio_filename: null,
          audio_bytes: null,
          duration_sec: null,
          sample_rate: null,
          bit_depth: null,
          channels: null,
        },
      },
      { audio: gone },
    ],
  });
  await rm(mediaPath(h.dataDir, 'audio', sha256(gone), 'wav'));
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'audio_missing',
      field: 'tracks.1.audio',
      message: 'Track 2 has no audio; upload a WAV or FLAC file.',
    },
    {
      code: 'audio_missing',
      field: 'tracks.2.audio',
      message: 'The audio file of track 3 is missing from storage; upload the audio again.',
    },
  ]);
});

test('mono audio and a sample rate under 44.1 kHz are refused', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [{ audio: wavFile(MONO_22K), row: { channels: 1, sample_rate: 22_050, duration_sec: 2 } }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'audio_mono',
      field: 'tracks.0.audio',
      message:
        'The audio of track 1 is mono; stores require a stereo (2-channel) file, so export it in stereo.',
    },
    {
      code: 'sample_rate_too_low',
      field: 'tracks.0.audio',
      message: 'The audio of track 1 has a sample rate of 22.05 kHz; stores require at least 44.1 kHz.',
    },
  ]);
});

test('a bit depth under 16 is refused', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [{ audio: stereoWav(whiteNoise(31), 8), row: { bit_depth: 8 } }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'bit_depth_too_low',
      field: 'tracks.0.audio',
      message: 'The audio of track 1 is 8-bit; stores require at least 16-bit.',
    },
  ]);
});

test('a WAV with nothing above 15.05 kHz is reported as made from a lossy file', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [{}, { audio: stereoWav(lowPassed(41, 15_050)) }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'lossy_source',
      field: 'tracks.1.audio',
      message: `The audio of track 2 has almost no sound above 15.1 kHz, the mark of a file converted from an MP3 or similar; ${LOSSLESS}.`,
    },
  ]);
});

test('a FLAC with nothing above 16.05 kHz is reported as made from a lossy file', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [{ audio: stereoFlac(lowPassed(51, 16_050), lowPassed(52, 16_050)), format: 'flac' }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'lossy_source',
      field: 'tracks.0.audio',
      message: `The audio of track 1 has almost no sound above 16.1 kHz, the mark of a file converted from an MP3 or similar; ${LOSSLESS}.`,
    },
  ]);
});

test('the FLAC reader decodes LPC, fixed and mid/side frames exactly', async (t) => {
  const { h } = await setup(t);
  const left = whiteNoise(61);
  const right = lowPassed(62, 9_000);
  const bytes = stereoFlac(left, right);
  const file = await open(
    mediaPath(h.dataDir, 'audio', await storeFile(h, 'audio', bytes, 'flac'), 'flac'),
    'r',
  );
  const stream = await readFlacStream(file);
  await file.close();
  const window = bytes.subarray(stream.audioStart);
  const [decodedLeft, decodedRight] = await decodeFlacWindow(stream, window, left.length);
  const expected = (samples: Float64Array) => Array.from(samples, (s) => toInteger(s, 16) / 2 ** 15);
  assert.deepStrictEqual(Array.from(decodedLeft ?? []), expected(left));
  assert.deepStrictEqual(Array.from(decodedRight ?? []), expected(right));
});

test('tags naming a lossy encoder are reported even when the spectrum looks full', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [{ audio: stereoWav(whiteNoise(71), 16, [softwareTag('LAME3.100')]) }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'lossy_source',
      field: 'tracks.0.audio',
      message: `The tags of the audio of track 1 name a lossy encoder ("LAME3.100"), so it was converted from an MP3 or similar; ${LOSSLESS}.`,
    },
  ]);
  const converterOnly = await givenCleanRelease(h, labelId, {
    tracks: [{ audio: stereoWav(whiteNoise(72), 16, [softwareTag('Lavf59.27.100')]) }],
  });
  assert.deepStrictEqual(
    await findingsOf(h, labelId, converterOnly),
    [],
    "a converter's own name is no evidence",
  );
});
