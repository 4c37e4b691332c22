import { open } from 'node:fs/promises';
import type { IAudioMetadata } from 'music-metadata';
import type { AudioFormat } from '../../db/values.ts';
import { errors } from '../../errors.ts';

/** What an accepted audio file is, read from its content (never from its name or declared type). */
export interface AudioFacts {
  readonly format: AudioFormat;
  readonly durationSec: number;
  readonly sampleRate: number;
  readonly bitDepth: number | null;
  readonly channels: number;
}

/** WAVE_FORMAT_EXTENSIBLE: the real encoding is the sub-format GUID in the `fmt ` chunk. */
const WAVE_FORMAT_EXTENSIBLE = 'non-PCM (65534)';
/** KSDATAFORMAT_SUBTYPE_PCM as stored (little-endian fields). */
const PCM_SUBFORMAT = Buffer.from('0100000000001000800000aa00389b71', 'hex');
/** Chunks walked before `fmt ` is given up on; real files put it first or after a few metadata chunks. */
const MAX_CHUNKS_BEFORE_FMT = 64;

function notAccepted(detail: string) {
  return errors.invalid('audio', `The audio must be WAV (PCM) or FLAC: ${detail}`);
}

/**
 * Whether a WAVE_FORMAT_EXTENSIBLE file carries PCM. music-metadata names only the outer format
 * tag, and 24-bit or multichannel PCM is usually written in this wrapper, so the GUID is read here.
 */
async function isExtensiblePcm(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(8);
    let position = 12; // after "RIFF", the size and "WAVE"
    for (let i = 0; i < MAX_CHUNKS_BEFORE_FMT; i++) {
      const { bytesRead } = await file.read(header, 0, 8, position);
      if (bytesRead < 8) return false;
      const size = header.readUInt32LE(4);
      if (header.toString('latin1', 0, 4) === 'fmt ') {
        const fmt = Buffer.alloc(40);
        const read = await file.read(fmt, 0, 40, position + 8);
        return read.bytesRead === 40 && size >= 40 && fmt.subarray(24, 40).equals(PCM_SUBFORMAT);
      }
      position += 8 + size + (size % 2);
    }
    return false;
  } finally {
    await file.close();
  }
}

async function formatOf(
  path: string,
  container: string | undefined,
  codec: string | undefined,
): Promise<AudioFormat> {
  if (container === 'FLAC' && codec === 'FLAC') return 'flac';
  if (container === 'WAVE' && codec === 'PCM') return 'wav';
  if (container === 'WAVE' && codec === WAVE_FORMAT_EXTENSIBLE && (await isExtensiblePcm(path))) return 'wav';
  if (container === 'WAVE') throw notAccepted(`this WAV file is encoded as ${codec ?? 'an unknown codec'}`);
  throw notAccepted(`the file is ${container ?? 'of an unknown type'}`);
}

/** Milliseconds are plenty for a duration, and keep the number readable. */
function roundDuration(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/**
 * What real audio can be. A header may declare anything: a 100 MHz "WAV" of random bytes was once
 * accepted, and its analysis treated the whole file as a second of sound.
 */
const SAMPLE_RATES_HZ = { min: 8_000, max: 384_000 };
const MAX_CHANNELS = 8;
const BIT_DEPTHS = { min: 8, max: 32 };
const MIN_DURATION_SEC = 0.5;

function assertPlausible(sampleRate: number, channels: number, bitDepth: number | null, duration: number) {
  if (sampleRate < SAMPLE_RATES_HZ.min || sampleRate > SAMPLE_RATES_HZ.max) {
    throw errors.invalid(
      'audio',
      `The audio's sample rate ${sampleRate} Hz is outside ${SAMPLE_RATES_HZ.min}-${SAMPLE_RATES_HZ.max} Hz`,
    );
  }
  if (channels > MAX_CHANNELS) {
    throw errors.invalid('audio', `The audio has ${channels} channels; at most ${MAX_CHANNELS} are accepted`);
  }
  if (bitDepth !== null && (bitDepth < BIT_DEPTHS.min || bitDepth > BIT_DEPTHS.max)) {
    throw errors.invalid(
      'audio',
      `The audio's bit depth ${bitDepth} bits is outside ${BIT_DEPTHS.min}-${BIT_DEPTHS.max} bits`,
    );
  }
  if (duration < MIN_DURATION_SEC) {
    throw errors.invalid(
      'audio',
      `The audio lasts ${roundDuration(duration)} s; it must last at least ${MIN_DURATION_SEC} s`,
    );
  }
}

/**
 * Reads the file's container and stream facts; anything but WAV (PCM) or FLAC with sound, or with
 * facts no real recording has, is a 400.
 */
export async function probeAudio(path: string): Promise<AudioFacts> {
  // Loaded at the first upload rather than at start-up, which it would slow for every command and serve.
  const { parseFile } = await import('music-metadata');
  let metadata: IAudioMetadata;
  try {
    metadata = await parseFile(path, { skipCovers: true });
  } catch {
    throw notAccepted('the file could not be read as audio');
  }
  const { container, codec, sampleRate, numberOfChannels, duration, bitsPerSample } = metadata.format;
  const format = await formatOf(path, container, codec);
  if (!sampleRate || !numberOfChannels || !duration) {
    throw errors.invalid('audio', 'The audio file holds no sound (no samples, sample rate or channels)');
  }
  assertPlausible(sampleRate, numberOfChannels, bitsPerSample ?? null, duration);
  return {
    format,
    durationSec: roundDuration(duration),
    sampleRate,
    bitDepth: bitsPerSample ?? null,
    channels: numberOfChannels,
  };
}
