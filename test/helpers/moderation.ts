import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { TestContext } from 'node:test';
import type { Insertable } from 'kysely';
import { findRelease } from '../../src/core/releases.ts';
import { listReleaseTracks } from '../../src/core/tracks.ts';
import type { ReleasesTable, TracksTable } from '../../src/db/schema.ts';
import { seededRandom as random } from '../../src/lib/random.ts';
import { automatedChecks, type Finding } from '../../src/modules/moderation/moderation.checks.ts';
import { BitWriter, crc8, crc16, pcmWav } from './audio.ts';
import { givenRelease, givenTrack } from './catalog.ts';
import { buildHarness, givenLabel, type Harness } from './harness.ts';
import { type MediaKind, mediaPath } from './media.ts';

// --- Signals and files -----------------------------------------------------------------------

export const RATE = 44_100;
export const SECONDS = 2;

/** White noise: energy evenly up to 22 kHz, as a full-band master has treble. */
export function whiteNoise(seed: number): Float64Array {
  const next = random(seed);
  return Float64Array.from({ length: RATE * SECONDS }, () => next() - 0.5);
}

/**
 * What a decoded MP3 looks like to the spectrum: plenty of sound up to `maxHz` and nothing above.
 * 200 sines spread evenly (with a random offset each) below the cut, at random phases; each one is
 * turned by a fixed rotation per sample rather than a sin() call, to keep the test fast.
 */
export function lowPassed(seed: number, maxHz: number): Float64Array {
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

export function toInteger(sample: number, bits: number): number {
  const scale = 2 ** (bits - 1);
  // `|| 0`: Math.round gives -0 for small negatives, which is the same sample but not deep-equal.
  return Math.max(-scale, Math.min(scale - 1, Math.round(sample * scale))) || 0;
}

/** A PCM WAV of the same samples on both channels, with any extra chunks before `data`. */
export function stereoWav(samples: Float64Array, bitDepth: 8 | 16 = 16, extraChunks: Buffer[] = []): Buffer {
  const integers = Array.from(samples, (sample) => toInteger(sample, bitDepth));
  return pcmWav({ sampleRate: RATE, channels: 2, bitDepth }, integers, extraChunks);
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
export function stereoFlac(left: Float64Array, right: Float64Array): Buffer {
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

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Stores `bytes` where the media store would keep them; returns the content hash. */
export async function storeFile(h: Harness, kind: MediaKind, bytes: Buffer, ext: string): Promise<string> {
  const hash = sha256(bytes);
  const path = mediaPath(h.dataDir, kind, hash, ext);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
  return hash;
}

export const COVER = Buffer.from('a stored cover image');
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
export async function givenCleanRelease(
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

export async function findingsOf(h: Harness, workspaceId: number, releaseId: number): Promise<Finding[]> {
  const release = await findRelease(h.ctx.db, workspaceId, releaseId);
  assert.ok(release, 'release exists');
  return automatedChecks(h.ctx, release, await listReleaseTracks(h.ctx.db, workspaceId, releaseId));
}

export async function setup(t: TestContext) {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { contractSigned: true });
  return { h, labelId: label.id };
}
