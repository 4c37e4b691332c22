import type { FileHandle } from 'node:fs/promises';
import { readAt, Undecodable } from './moderation.audio-file.ts';

/** PCM WAV read for the spectral check: where the samples are, and excerpts of them as numbers. */

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Chunks walked before giving up, as the upload check does. */
const MAX_CHUNKS = 64;
/** The fixed part of a `bext` chunk (EBU Tech 3285); the coding history follows it. */
const BEXT_FIXED_BYTES = 602;
const MAX_CODING_HISTORY_BYTES = 4096;

export interface WavLayout {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bytesPerSample: number;
  readonly dataStart: number;
  readonly frames: number;
  readonly codingHistory: string | null;
}

/**
 * Walks the RIFF chunks for the format, the sample data and the BWF coding history
 * ("A=MPEG1L3,F=44100,B=128,..."), which music-metadata skips.
 */
export async function wavLayout(file: FileHandle): Promise<WavLayout> {
  const size = (await file.stat()).size;
  const riff = await readAt(file, 0, 12);
  if (
    riff.length < 12 ||
    riff.toString('latin1', 0, 4) !== 'RIFF' ||
    riff.toString('latin1', 8, 12) !== 'WAVE'
  ) {
    throw new Undecodable('not RIFF/WAVE');
  }
  let format: { sampleRate: number; channels: number; bytesPerSample: number } | undefined;
  let codingHistory: string | null = null;
  let position = 12;
  for (let i = 0; i < MAX_CHUNKS && position + 8 <= size; i++) {
    const header = await readAt(file, position, 8);
    const id = header.toString('latin1', 0, 4);
    const length = header.readUInt32LE(4);
    const body = position + 8;
    if (id === 'fmt ') {
      const fmt = await readAt(file, body, 16);
      const tag = fmt.readUInt16LE(0);
      const channels = fmt.readUInt16LE(2);
      const blockAlign = fmt.readUInt16LE(12);
      if (
        (tag !== WAVE_FORMAT_PCM && tag !== WAVE_FORMAT_EXTENSIBLE) ||
        channels === 0 ||
        blockAlign % channels
      ) {
        throw new Undecodable('not PCM');
      }
      format = { sampleRate: fmt.readUInt32LE(4), channels, bytesPerSample: blockAlign / channels };
    } else if (id === 'bext' && length > BEXT_FIXED_BYTES) {
      const history = await readAt(
        file,
        body + BEXT_FIXED_BYTES,
        Math.min(length - BEXT_FIXED_BYTES, MAX_CODING_HISTORY_BYTES),
      );
      codingHistory = history.toString('latin1').replace(/\0.*$/s, '');
    } else if (id === 'data') {
      if (format === undefined || format.bytesPerSample < 1 || format.bytesPerSample > 4) {
        throw new Undecodable('data before fmt');
      }
      // A streamed or oversized header may claim more than the file holds: the file decides.
      const bytes = Math.min(length, size - body);
      const frames = Math.floor(bytes / (format.bytesPerSample * format.channels));
      return { ...format, dataStart: body, frames, codingHistory };
    }
    position = body + length + (length % 2);
  }
  throw new Undecodable('no data chunk');
}

function readSample(buffer: Buffer, offset: number, bytes: number): number {
  // 8-bit WAV is unsigned; wider samples are signed little-endian.
  if (bytes === 1) return ((buffer[offset] ?? 128) - 128) / 128;
  return buffer.readIntLE(offset, bytes) / 2 ** (8 * bytes - 1);
}

/**
 * The first `channels` channels of the sample frames [start, start + frames), normalised to
 * [-1, 1); fewer frames where the data ends first.
 */
export async function readWavExcerpt(
  file: FileHandle,
  layout: WavLayout,
  excerpt: { start: number; frames: number },
  channels: number,
): Promise<Float64Array[]> {
  const frameBytes = layout.bytesPerSample * layout.channels;
  const buffer = await readAt(
    file,
    layout.dataStart + excerpt.start * frameBytes,
    excerpt.frames * frameBytes,
  );
  const frames = Math.floor(buffer.length / frameBytes);
  return Array.from({ length: Math.min(layout.channels, channels) }, (_, channel) => {
    const samples = new Float64Array(frames);
    for (let i = 0; i < frames; i++) {
      samples[i] = readSample(
        buffer,
        i * frameBytes + channel * layout.bytesPerSample,
        layout.bytesPerSample,
      );
    }
    return samples;
  });
}
