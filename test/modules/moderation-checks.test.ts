import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { Insertable } from 'kysely';
import { findRelease } from '../../src/core/releases.ts';
import { listReleaseTracks } from '../../src/core/tracks.ts';
import type { ReleasesTable, TracksTable } from '../../src/db/schema.ts';
import { seededRandom as random } from '../../src/lib/random.ts';
import { ensureSandboxWorkspace, getLabel } from '../../src/modules/labels/labels.service.ts';
import { type MediaKind, mediaPath } from '../../src/modules/media/media.storage.ts';
import { automatedChecks, type Finding } from '../../src/modules/moderation/moderation.checks.ts';
import { decodeFlacWindow, readFlacStream } from '../../src/modules/moderation/moderation.flac.ts';
import { BitWriter, crc8, crc16, MONO_22K, pcmWav, riffChunk, wavFile } from '../helpers/audio.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, givenLabel, type Harness } from '../helpers/harness.ts';

// --- Signals and files -----------------------------------------------------------------------

const RATE = 44_100;
const SECONDS = 2;

/** White noise: energy evenly up to 22 kHz, as a full-band master has treble. */
function whiteNoise(seed: number): Float64Array {
  const next = random(seed);
  return Float64Array.from({ length: RATE * SECONDS }, () => next() - 0.5);
}

/**
 * What a decoded MP3 looks like to the spectrum: plenty of sound up to `maxHz` and nothing above.
 * 200 sines spread evenly (with a random offset each) below the cut, at random phases; each one is
 * turned by a fixed rotation per sample rather than a sin() call, to keep the test fast.
 */
function lowPassed(seed: number, maxHz: number): Float64Array {
  const next = random(seed);
  const tones = 200;
  const samples = new Float64Array(RATE * SECONDS);
  for (let k = 0; k < tones; k++) {
    const step = (2 * Math.PI * (100 + ((k + next()) * (maxHz - 100)) / tones)) / RATE;
    const [cosStep, sinStep] = [Math.cos(step), Math.sin(step)];
    const phase = next() * 2 * Math.PI;
    let [re, im] = [Math.cos(phase), Math.sin(phase)];
    for (let i = 0; i < samples.length; i++) {
      samples[i] = (samples[i] ?? 0) + 0.02 * im;
      [re, im] = [re * cosStep - im * sinStep, re * sinStep + im * cosStep];
    }
  }
  return samples;
}

function toInteger(sample: number, bits: number): number {
  const scale = 2 ** (bits - 1);
  // `|| 0`: Math.round gives -0 for small negatives, which is the same sample but not deep-equal.
  return Math.max(-scale, Math.min(scale - 1, Math.round(sample * scale))) || 0;
}

/** A PCM WAV of the same samples on both channels, with any extra chunks before `data`. */
function stereoWav(samples: Float64Array, bitDepth: 8 | 16 = 16, extraChunks: Buffer[] = []): Buffer {
  const integers = Array.from(samples, (sample) => toInteger(sample, bitDepth));
  return pcmWav({ sampleRate: RATE, channels: 2, bitDepth }, integers, extraChunks);
}

/** A RIFF INFO list naming the software that wrote the file, as converters leave it. */
function softwareTag(software: string): Buffer {
  return riffChunk(
    'LIST',
    Buffer.concat([Buffer.from('INFO', 'latin1'), riffChunk('ISFT', Buffer.from(`${software}\0`, 'latin1'))]),
  );
}

/** Rice-coded residuals, one partition, 5-bit parameter (coding method 1). */
function writeResidual(bits: BitWriter, residuals: number[]): void {
  const mean = residuals.reduce((sum, r) => sum + Math.abs(r), 0) / Math.max(residuals.length, 1);
  const parameter = Math.min(30, Math.max(0, Math.floor(Math.log2(Math.max(mean, 1)))));
  bits.write(1, 2);
  bits.write(0, 4);
  bits.write(parameter, 5);
  for (const r of residuals) {
    const folded = r >= 0 ? 2 * r : -2 * r - 1;
    const quotient = Math.floor(folded / 2 ** parameter);
    bits.write(0, quotient);
    bits.write(1, 1);
    bits.write(folded % 2 ** parameter, parameter);
  }
}

function secondOrderResidual(samples: readonly number[]): number[] {
  return samples.slice(2).map((s, i) => s - (2 * (samples[i + 1] ?? 0) - (samples[i] ?? 0)));
}

const FLAC_BLOCK = 4096;

/**
 * A FLAC stream as real encoders write it, not verbatim: mid/side stereo, the mid channel as an
 * LPC subframe (order 2, coefficients 2 and -1) and the side channel as a fixed order-2 subframe,
 * with Rice-coded residuals, so the decoder's usual paths are the ones exercised.
 */
function stereoFlac(left: Float64Array, right: Float64Array): Buffer {
  const l = Array.from(left, (s) => toInteger(s, 16));
  const r = Array.from(right, (s) => toInteger(s, 16));
  const info = new BitWriter();
  info.write(FLAC_BLOCK, 16);
  info.write(FLAC_BLOCK, 16);
  info.write(0, 48); // frame sizes unknown
  info.write(RATE, 20);
  info.write(1, 3); // two channels
  info.write(15, 5); // 16 bits
  info.write(l.length, 36);
  info.write(0, 64);
  info.write(0, 64); // MD5 unknown
  const frames: Buffer[] = [];
  for (let start = 0, number = 0; start < l.length; start += FLAC_BLOCK, number++) {
    const size = Math.min(FLAC_BLOCK, l.length - start);
    const header = new BitWriter();
    header.write(0xfff8, 16);
    header.write(0b0111, 4); // block size in 16 bits after the header
    header.write(0, 4); // sample rate from STREAMINFO
    header.write(0b1010, 4); // mid/side
    header.write(0, 3); // sample size from STREAMINFO
    header.write(0, 1);
    header.write(number, 8);
    header.write(size - 1, 16);
    const headerBytes = header.toBuffer();
    const mid: number[] = [];
    const side: number[] = [];
    for (let i = start; i < start + size; i++) {
      mid.push(Math.floor(((l[i] ?? 0) + (r[i] ?? 0)) / 2));
      side.push((l[i] ?? 0) - (r[i] ?? 0));
    }
    const body = new BitWriter();
    body.write(0b01000010, 8); // LPC subframe, order 2, no wasted bits
    body.writeSigned(mid[0] ?? 0, 16);
    body.writeSigned(mid[1] ?? 0, 16);
    body.write(2, 4); // coefficient precision 3 bits
    body.writeSigned(0, 5); // shift
    body.writeSigned(2, 3);
    body.writeSigned(-1, 3);
    writeResidual(body, secondOrderResidual(mid));
    body.write(0b00010100, 8); // fixed subframe, order 2
    body.writeSigned(side[0] ?? 0, 17);
    body.writeSigned(side[1] ?? 0, 17);
    writeResidual(body, secondOrderResidual(side));
    body.alignToByte();
    const withoutCrc = Buffer.concat([headerBytes, Buffer.from([crc8(headerBytes)]), body.toBuffer()]);
    const crc = Buffer.alloc(2);
    crc.writeUInt16BE(crc16(withoutCrc), 0);
    frames.push(withoutCrc, crc);
  }
  const streamInfoHeader = Buffer.from([0x80, 0, 0, 34]);
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), streamInfoHeader, info.toBuffer(), ...frames]);
}

// --- Catalog ---------------------------------------------------------------------------------

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Stores `bytes` where the media store would keep them; returns the content hash. */
async function storeFile(h: Harness, kind: MediaKind, bytes: Buffer, ext: string): Promise<string> {
  const hash = sha256(bytes);
  const path = mediaPath(h.dataDir, kind, hash, ext);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
  return hash;
}

const COVER = Buffer.from('a stored cover image');
const PRODUCER = JSON.stringify([{ name: 'Ilse Moran', role: 'Producer' }]);

interface TrackSpec {
  /** The audio file to store; a full-band stereo WAV when absent. */
  audio?: Buffer;
  format?: 'wav' | 'flac';
  row?: Partial<Insertable<TracksTable>>;
}

/** Audio columns of a stored file, with the facts the upload would have read from it. */
async function audioColumns(h: Harness, spec: TrackSpec): Promise<Partial<Insertable<TracksTable>>> {
  const format = spec.format ?? 'wav';
  const bytes = spec.audio ?? stereoWav(whiteNoise(7));
  return {
    audio_hash: await storeFile(h, 'audio', bytes, format),
    audio_format: format,
    audio_filename: `night-drive.${format}`,
    audio_bytes: bytes.length,
    duration_sec: SECONDS,
    sample_rate: RATE,
    bit_depth: 16,
    channels: 2,
  };
}

/** A release with a stored cover and tracks that pass every check unless a spec says otherwise. */
async function givenCleanRelease(
  h: Harness,
  workspaceId: number,
  input: { release?: Partial<Insertable<ReleasesTable>>; tracks?: TrackSpec[] } = {},
): Promise<number> {
  // Several releases of one label share its first artist (artist names are unique in a label).
  const artist = await h.ctx.db
    .selectFrom('artists')
    .select('id')
    .where('label_id', '=', workspaceId)
    .executeTakeFirst();
  const release = await givenRelease(h, workspaceId, {
    ...(artist && { artist_id: artist.id }),
    cover_hash: await storeFile(h, 'covers', COVER, 'jpg'),
    cover_format: 'jpeg',
    ...input.release,
  });
  for (const [index, spec] of (input.tracks ?? [{}]).entries()) {
    await givenTrack(h, workspaceId, release.id, {
      number: index + 1,
      title: 'Night Drive',
      contributors: PRODUCER,
      ...(await audioColumns(h, spec)),
      ...spec.row,
    });
  }
  return release.id;
}

async function findingsOf(h: Harness, workspaceId: number, releaseId: number): Promise<Finding[]> {
  const release = await findRelease(h.ctx.db, workspaceId, releaseId);
  assert.ok(release, 'release exists');
  return automatedChecks(h.ctx, release, await listReleaseTracks(h.ctx.db, workspaceId, releaseId));
}

async function setup(t: TestContext) {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { contractSigned: true });
  return { h, labelId: label.id };
}

const LOSSLESS = 'upload a WAV or FLAC exported from the lossless master';

// --- Tests -----------------------------------------------------------------------------------

test('a clean release with full-band stereo audio, a cover and credits has no findings', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'ABBA', version: 'Deluxe Edition' },
    tracks: [
      {},
      { row: { title: 'Come Clean', version: 'Radio Edit' } },
      { audio: stereoFlac(whiteNoise(3), whiteNoise(4)), format: 'flac', row: { title: 'A Great Feat' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), []);
});

test('audio identical to a track another label sent to the distributor is a duplicate; its drafts do not count', async (t) => {
  const { h, labelId } = await setup(t);
  const other = await givenLabel(h, { name: 'Harbour Lane Music' });
  const audio = stereoWav(whiteNoise(11));
  const releaseId = await givenCleanRelease(h, labelId, { tracks: [{}, { audio }] });
  const otherRelease = await givenCleanRelease(h, other.id, { tracks: [{ audio }] });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [], 'a draft elsewhere blocks nobody');
  await h.ctx.db.updateTable('releases').set({ status: 'live' }).where('id', '=', otherRelease).execute();
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'duplicate_audio',
      field: 'tracks.1.audio',
      message:
        'The audio of track 2 is byte-for-byte identical to a track of another label; deliver only recordings this label holds the rights to.',
    },
  ]);
});

test("the same audio on the label's other releases and in its own sandbox is not a duplicate", async (t) => {
  const { h, labelId } = await setup(t);
  const sandbox = await ensureSandboxWorkspace(h.ctx, await getLabel(h.ctx, labelId));
  const audio = stereoWav(whiteNoise(12));
  const releaseId = await givenCleanRelease(h, labelId, { tracks: [{ audio }] });
  await givenCleanRelease(h, labelId, { tracks: [{ audio }] });
  const sandboxReleaseId = await givenCleanRelease(h, sandbox.id, { tracks: [{ audio }] });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), []);
  assert.deepStrictEqual(await findingsOf(h, sandbox.id, sandboxReleaseId), [], 'checked from the sandbox');
});

test('a release without a cover, or whose cover file is gone, is reported', async (t) => {
  const { h, labelId } = await setup(t);
  const withoutCover = await givenCleanRelease(h, labelId, {
    release: { cover_hash: null, cover_format: null },
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, withoutCover), [
    {
      code: 'cover_missing',
      field: 'cover',
      message: 'The release has no cover; upload a square JPEG or PNG image of at least 1400 x 1400 px.',
    },
  ]);
  const coverGone = await givenCleanRelease(h, labelId);
  await rm(mediaPath(h.dataDir, 'covers', sha256(COVER), 'jpg'));
  assert.deepStrictEqual(await findingsOf(h, labelId, coverGone), [
    {
      code: 'cover_missing',
      field: 'cover',
      message: 'The cover image file is missing from storage; upload the cover again.',
    },
  ]);
});

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

test('featured artists in a title or version belong in the credits', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Night Drive (feat. Nova Hill)' },
    tracks: [
      { row: { title: 'Night Drive', version: 'Remix ft. Nova Hill' } },
      { row: { title: 'Lights featuring Ode' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'featured_artist_in_title',
      field: 'title',
      message:
        'The release title names a featured artist ("feat."); remove it and list featured artists in the release\'s featured_artists.',
    },
    {
      code: 'featured_artist_in_title',
      field: 'tracks.0.version',
      message:
        'The version of track 1 names a featured artist ("feat."); remove it and list featured artists in the track\'s featured credits.',
    },
    {
      code: 'featured_artist_in_title',
      field: 'tracks.1.title',
      message:
        'The title of track 2 names a featured artist ("feat."); remove it and list featured artists in the track\'s featured credits.',
    },
  ]);
});

test('a title in capitals is reported, a short acronym is not', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'NIGHT DRIVE' },
    tracks: [{ row: { title: 'DNA' } }, { row: { title: 'Lights', version: 'LIVE AT THE ROXY' } }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'title_all_caps',
      field: 'title',
      message:
        'The release title is written in capital letters; stores require standard capitalisation (all capitals only for acronyms).',
    },
    {
      code: 'title_all_caps',
      field: 'tracks.1.version',
      message:
        'The version of track 2 is written in capital letters; stores require standard capitalisation (all capitals only for acronyms).',
    },
  ]);
});

test('store names and web addresses in a title are reported', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Night Drive (Spotify Singles)' },
    tracks: [
      { row: { title: 'Tidal Wave' } },
      { row: { title: 'Lights', version: 'Live on TIDAL' } },
      { row: { title: 'Out now at www.miravale.com' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'store_name_in_title',
      field: 'title',
      message:
        'The release title names a store or service ("Spotify"); remove it, as stores refuse titles that mention a platform.',
    },
    {
      code: 'store_name_in_title',
      field: 'tracks.1.version',
      message:
        'The version of track 2 names a store or service ("TIDAL"); remove it, as stores refuse titles that mention a platform.',
    },
    {
      code: 'url_in_title',
      field: 'tracks.2.title',
      message:
        'The title of track 3 contains a web address; remove it, as stores refuse links and addresses in titles.',
    },
  ]);
});

test('explicit and clean markers in a title or version are reported', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Night Drive [Explicit]' },
    tracks: [
      { row: { title: 'Night Drive (Explicit Version)', explicit: 1 } },
      { row: { version: 'Clean' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'explicit_marker_in_title',
      field: 'title',
      message:
        "The release title carries an explicit or clean marker; remove it, explicit content is marked with each track's explicit flag.",
    },
    {
      code: 'explicit_marker_in_title',
      field: 'tracks.0.title',
      message:
        "The title of track 1 carries an explicit or clean marker; remove it, mark explicit content with the track's explicit flag instead.",
    },
    {
      code: 'explicit_marker_in_title',
      field: 'tracks.1.version',
      message:
        "The version of track 2 carries an explicit or clean marker; remove it, mark explicit content with the track's explicit flag instead.",
    },
  ]);
});

test('placeholder titles are reported', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Untitled' },
    tracks: [{ row: { title: 'Track 1' } }, { row: { title: 'Intro' } }, { row: { title: 'final_mix.wav' } }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'placeholder_title',
      field: 'title',
      message: 'The release title, "Untitled", looks like a placeholder; give the real title.',
    },
    {
      code: 'placeholder_title',
      field: 'tracks.0.title',
      message: 'The title of track 1, "Track 1", looks like a placeholder; give the real title.',
    },
    {
      code: 'placeholder_title',
      field: 'tracks.2.title',
      message: 'The title of track 3, "final_mix.wav", looks like a placeholder; give the real title.',
    },
  ]);
});

test('every track needs at least one named contributor', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [
      {},
      { row: { contributors: '[]' } },
      { row: { contributors: JSON.stringify([{ name: ' ', role: 'Producer' }]) } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'contributors_missing',
      field: 'tracks.1.contributors',
      message: 'Track 2 lists no contributors; add at least one (for example the performer or the producer).',
    },
    {
      code: 'contributors_missing',
      field: 'tracks.2.contributors',
      message: 'Track 3 lists no contributors; add at least one (for example the performer or the producer).',
    },
  ]);
});

test('findings come release first, then each track in order', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Track 9', cover_hash: null, cover_format: null },
    tracks: [
      { row: { title: 'Untitled', contributors: '[]', channels: 1 } },
      { row: { title: 'Lights (feat. Ode)' } },
    ],
  });
  const findings = await findingsOf(h, labelId, releaseId);
  assert.deepStrictEqual(
    findings.map((finding) => [finding.field, finding.code]),
    [
      ['title', 'placeholder_title'],
      ['cover', 'cover_missing'],
      ['tracks.0.title', 'placeholder_title'],
      ['tracks.0.contributors', 'contributors_missing'],
      ['tracks.0.audio', 'audio_mono'],
      ['tracks.1.title', 'featured_artist_in_title'],
    ],
  );
});
