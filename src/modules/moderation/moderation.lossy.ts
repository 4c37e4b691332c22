import { type FileHandle, open } from 'node:fs/promises';
import FFT from 'fft.js';
import { parseFile } from 'music-metadata';
import { decodeFlacWindow, readFlacStream, Undecodable } from './moderation.flac.ts';

/**
 * Is a WAV or FLAC upload really a decoded MP3/AAC? The container says lossless either way
 * (music-metadata's `lossless` is true for any PCM WAV or FLAC), so two kinds of evidence are used:
 *
 * 1. Tags (cheap, certain when present, usually absent): an encoder or coding history naming a
 *    lossy codec (LAME, libmp3lame, Lavc aac, Fraunhofer, a BWF `A=MPEG...` line, an iTunSMPB
 *    gapless tag that only MP3/AAC encoders write). A converter's own name ("Lavf", "reference
 *    libFLAC") says nothing about the source, so it is not evidence.
 * 2. The spectrum (works on the samples whatever the tags say): MP3 and AAC encoders low-pass the
 *    signal hard (about 16 kHz at 128 kbit/s, 17-19 kHz at 160-192 kbit/s) and leave nothing above,
 *    a cliff of 60 dB and more within a few hundred hertz. Real recordings roll off gently instead.
 *    Only four excerpts of a second (at 20/40/60/80% of the track, past intros and fade-outs) are
 *    read, by position, each capped at MAX_EXCERPT_FRAMES whatever rate the header declares: a
 *    200 MB file costs at most a few MB of reading and about 260 FFTs. It runs in a worker thread
 *    (moderation.pool.ts), never on the event loop.
 *
 * Limits, chosen to avoid refusing honest masters: cut-offs above 19 kHz are not looked for, since
 * resamplers and converters' anti-alias filters cut there too, so 256-320 kbit/s sources pass; a
 * track with little treble (a solo bass, a dark lo-fi mix) shows no cliff and passes; a master
 * deliberately low-passed at 11-19 kHz, or upsampled from 32 kHz, is reported (operators judge).
 */
export type LossyEvidence =
  | { readonly kind: 'encoder_tag'; readonly tag: string }
  | { readonly kind: 'lowpass'; readonly cutoffHz: number };

export async function lossySourceEvidence(path: string, format: string): Promise<LossyEvidence | null> {
  const file = await open(path, 'r');
  try {
    const wav = format === 'wav' ? await orNull(wavLayout(file)) : null;
    const tag = await lossyEncoderTag(path, wav?.codingHistory ?? null);
    if (tag !== null) return { kind: 'encoder_tag', tag };
    const spectrum = new Spectrum();
    if (wav !== null) await analyseWav(file, wav, spectrum);
    else if (format === 'flac') await analyseFlac(file, spectrum);
    else return null;
    const cutoffHz = spectrum.lowpassCutoffHz();
    return cutoffHz === null ? null : { kind: 'lowpass', cutoffHz };
  } catch (error) {
    if (error instanceof Undecodable) return null;
    throw error;
  } finally {
    await file.close();
  }
}

/** A file whose structure cannot be followed gives no evidence either way (it passed the upload's probe). */
async function orNull<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof Undecodable) return null;
    throw error;
  }
}

// --- Tags ------------------------------------------------------------------------------------

/**
 * Lossy encoders as they sign their work in tags. LAME always signs in capitals ("LAME3.100"), and
 * is matched case-sensitively so that a free comment saying "lame 2" is not taken for it.
 */
const LAME = /\bLAME\s*v?\d/;
const LOSSY_ENCODER =
  /\blibmp3lame\b|\bLavc[\d.]*\s+(?:mp3\w*|mp2|aac\w*|libfdk_aac|libvorbis|vorbis|libopus|opus)\b|\bFraunhofer\b|\bNero\s*AAC|\bFAAC\b|\bqaac\b|\blibVorbis\b|\blibopus\b|(?:^|[\s,;])A=(?:MPEG|AAC|AC-?3|ATRAC|VORBIS|OPUS|WMA)/i;
/** Tags that carry the encoder, the software or free comments; titles and names are not looked at. */
const ENCODER_TAG_ID =
  /^(?:ISFT|CODE|ICMT|TSSE|TENC|TSS|TEN|COMM(?::.*)?|COMMENT|DESCRIPTION|ENCODER|ENCODED[-_ ]?BY|ENCODING|ENCODER[-_ ]?(?:SETTINGS|OPTIONS)|TXXX:(?:ENCODER|ENCODED[-_ ]?BY|ENCODING|SOFTWARE|TOOL).*|bext\.(?:description|originator|codingHistory))$/i;
/** The gapless-playback tag of MP3/AAC encoders (iTunes, LAME front ends): absent from PCM masters. */
const ITUNSMPB = /itunsmpb/i;
const MAX_QUOTED_TAG = 60;

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'text' in value && typeof value.text === 'string') {
    return value.text;
  }
  return null;
}

function quoted(text: string): string {
  const clean = text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return clean.length > MAX_QUOTED_TAG ? `${clean.slice(0, MAX_QUOTED_TAG - 1)}…` : clean;
}

/**
 * The first tag naming a lossy encoder, or null. Unreadable tags are no evidence. A WAV's BWF
 * coding history comes from the caller, which has walked the chunks (music-metadata skips it).
 */
async function lossyEncoderTag(path: string, codingHistory: string | null): Promise<string | null> {
  let metadata: Awaited<ReturnType<typeof parseFile>>;
  try {
    metadata = await parseFile(path, { skipCovers: true, duration: false });
  } catch {
    return null;
  }
  const candidates: string[] = [];
  if (metadata.format.tool) candidates.push(metadata.format.tool);
  for (const tags of Object.values(metadata.native)) {
    for (const { id, value } of tags) {
      if (ITUNSMPB.test(id)) return 'iTunSMPB';
      const text = textOf(value);
      if (text !== null && ENCODER_TAG_ID.test(id)) candidates.push(text);
    }
  }
  if (codingHistory !== null) candidates.push(codingHistory);
  // Line by line, so a coding history or a long comment is quoted by the line that names the codec.
  const found = candidates
    .flatMap((text) => text.split(/[\r\n]+/))
    .find((line) => LAME.test(line) || LOSSY_ENCODER.test(line));
  return found === undefined ? null : quoted(found);
}

// --- WAV -------------------------------------------------------------------------------------

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Chunks walked before giving up, as the upload check does. */
const MAX_CHUNKS = 64;
/** The fixed part of a `bext` chunk (EBU Tech 3285); the coding history follows it. */
const BEXT_FIXED_BYTES = 602;
const MAX_CODING_HISTORY_BYTES = 4096;

interface WavLayout {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bytesPerSample: number;
  readonly dataStart: number;
  readonly frames: number;
  readonly codingHistory: string | null;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * Walks the RIFF chunks for the format, the sample data and the BWF coding history
 * ("A=MPEG1L3,F=44100,B=128,..."), which music-metadata skips.
 */
async function wavLayout(file: FileHandle): Promise<WavLayout> {
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

async function analyseWav(file: FileHandle, layout: WavLayout, spectrum: Spectrum): Promise<void> {
  const frameBytes = layout.bytesPerSample * layout.channels;
  const analysed = Math.min(layout.channels, ANALYSED_CHANNELS);
  spectrum.sampleRate = layout.sampleRate;
  for (const excerpt of excerpts(layout.frames, layout.sampleRate)) {
    const buffer = await readAt(
      file,
      layout.dataStart + excerpt.start * frameBytes,
      excerpt.frames * frameBytes,
    );
    const frames = Math.floor(buffer.length / frameBytes);
    for (let channel = 0; channel < analysed; channel++) {
      const samples = new Float64Array(frames);
      for (let i = 0; i < frames; i++) {
        samples[i] = readSample(
          buffer,
          i * frameBytes + channel * layout.bytesPerSample,
          layout.bytesPerSample,
        );
      }
      spectrum.add(samples);
    }
  }
}

// --- FLAC ------------------------------------------------------------------------------------

/** Room for the frame in progress where a window starts and for frames larger than raw audio. */
const FLAC_WINDOW_SLACK_BYTES = 256 * 1024;

async function analyseFlac(file: FileHandle, spectrum: Spectrum): Promise<void> {
  const stream = await readFlacStream(file);
  const size = (await file.stat()).size;
  spectrum.sampleRate = stream.sampleRate;
  const rawBytesPerFrame = stream.channels * Math.ceil(stream.bitsPerSample / 8) || 1;
  const totalFrames = stream.totalSamples || Math.floor((size - stream.audioStart) / rawBytesPerFrame);
  for (const excerpt of excerpts(totalFrames, stream.sampleRate)) {
    // Compressed frames have no index by time: the excerpt is found by its share of the bytes,
    // which is close enough for "a second somewhere around 40% of the track".
    const start =
      stream.audioStart + Math.floor(((size - stream.audioStart) * excerpt.start) / Math.max(totalFrames, 1));
    const window = await readAt(file, start, excerpt.frames * rawBytesPerFrame + FLAC_WINDOW_SLACK_BYTES);
    const channels = await decodeFlacWindow(stream, window, excerpt.frames);
    for (const samples of channels.slice(0, ANALYSED_CHANNELS)) spectrum.add(samples);
  }
}

// --- Excerpts and spectrum -------------------------------------------------------------------

const EXCERPTS = 4;
const EXCERPT_SECONDS = 1;
/** Left and right carry the treble of any mix; further channels add cost, not evidence. */
const ANALYSED_CHANNELS = 2;
const FFT_SIZE = 4096;
/**
 * The most sample frames one excerpt reads, whatever the header declares (a second up to 131 kHz):
 * with 8 channels of 32 bits, 4 MB of reading and 1 MB of samples per channel at a time.
 */
const MAX_EXCERPT_FRAMES = 32 * FFT_SIZE;

/**
 * Where the excerpts are, in sample frames. A file shorter than all of them is read whole, in
 * excerpts of whole FFT frames laid end to end, so that no sound is lost between two of them.
 */
function excerpts(totalFrames: number, sampleRate: number): Array<{ start: number; frames: number }> {
  const length = Math.min(Math.round(EXCERPT_SECONDS * sampleRate), MAX_EXCERPT_FRAMES);
  if (totalFrames <= EXCERPTS * length) {
    const step = FFT_SIZE * Math.max(1, Math.floor(length / FFT_SIZE));
    return Array.from({ length: Math.ceil(totalFrames / step) }, (_, i) => ({
      start: i * step,
      frames: Math.min(step, totalFrames - i * step),
    }));
  }
  return Array.from({ length: EXCERPTS }, (_, i) => ({
    start: Math.round(((i + 1) / (EXCERPTS + 1)) * totalFrames - length / 2),
    frames: length,
  }));
}

/** Below this much analysed audio (frames of FFT_SIZE) there is no verdict. */
const MIN_FFT_FRAMES = 10;
/** Where a lossy encoder's low-pass is looked for. */
const MIN_CUTOFF_HZ = 11_000;
const MAX_CUTOFF_HZ = 19_000;
const CUTOFF_STEP_HZ = 250;
/** The transition left out on either side of a candidate cut-off. */
const GUARD_HZ = 500;
const BELOW_WIDTH_HZ = 1500;
const ABOVE_BAND_HZ = 500;
/** The highest frequency compared: under every anti-alias filter of a 44.1 kHz file. */
const TOP_HZ = 21_000;
/**
 * How far everything above the cut-off must sit below the band under it. Decoded MP3/AAC shows
 * 60-70 dB; a gentle natural roll-off, a synth filter or noise-shaped dither shows a few dB.
 */
const MIN_DROP_DB = 30;

/** The average power spectrum of everything added, and the verdict read from it. */
class Spectrum {
  sampleRate = 0;
  private readonly power = new Float64Array(FFT_SIZE / 2 + 1);
  private frames = 0;
  private readonly window = Float64Array.from(
    { length: FFT_SIZE },
    (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FFT_SIZE),
  );
  private readonly fft = new FFT(FFT_SIZE);
  private readonly input = new Float64Array(FFT_SIZE);
  /** Interleaved real and imaginary parts; a real transform fills the bins up to half the rate. */
  private readonly output = new Float64Array(2 * FFT_SIZE);

  /** Adds one channel's samples, in frames of FFT_SIZE; digital silence carries no evidence. */
  add(samples: Float64Array): void {
    for (let start = 0; start + FFT_SIZE <= samples.length; start += FFT_SIZE) {
      let energy = 0;
      for (let i = 0; i < FFT_SIZE; i++) {
        const value = samples[start + i] ?? 0;
        energy += value * value;
        this.input[i] = value * (this.window[i] ?? 0);
      }
      if (energy === 0) continue;
      this.fft.realTransform(this.output, this.input);
      for (let bin = 0; bin < this.power.length; bin++) {
        const re = this.output[2 * bin] ?? 0;
        const im = this.output[2 * bin + 1] ?? 0;
        this.power[bin] = (this.power[bin] ?? 0) + re * re + im * im;
      }
      this.frames++;
    }
  }

  /** The mean level (dB, arbitrary reference) of the bins in [fromHz, toHz). */
  private levelDb(fromHz: number, toHz: number): number {
    const binHz = this.sampleRate / FFT_SIZE;
    const first = Math.ceil(fromHz / binHz);
    const last = Math.min(Math.ceil(toHz / binHz), this.power.length);
    let sum = 0;
    for (let bin = first; bin < last; bin++) sum += this.power[bin] ?? 0;
    return 10 * Math.log10(sum / Math.max(last - first, 1) / Math.max(this.frames, 1) + 1e-30);
  }

  /**
   * The frequency where a lossy encoder's low-pass cut everything off, or null. A candidate counts
   * when every 500 Hz band from just above it to 21 kHz sits MIN_DROP_DB under the band just below
   * it; the strongest candidate wins, and its edge is then placed to 100 Hz.
   */
  lowpassCutoffHz(): number | null {
    if (this.frames < MIN_FFT_FRAMES || this.sampleRate === 0) return null;
    const top = Math.min(TOP_HZ, this.sampleRate / 2 - GUARD_HZ);
    let best: { cutoff: number; below: number; drop: number } | null = null;
    for (let cutoff = MIN_CUTOFF_HZ; cutoff <= MAX_CUTOFF_HZ; cutoff += CUTOFF_STEP_HZ) {
      if (cutoff + GUARD_HZ + 2 * ABOVE_BAND_HZ > top) break;
      const below = this.levelDb(cutoff - GUARD_HZ - BELOW_WIDTH_HZ, cutoff - GUARD_HZ);
      let loudestAbove = Number.NEGATIVE_INFINITY;
      for (let from = cutoff + GUARD_HZ; from + ABOVE_BAND_HZ <= top; from += ABOVE_BAND_HZ) {
        loudestAbove = Math.max(loudestAbove, this.levelDb(from, from + ABOVE_BAND_HZ));
      }
      const drop = below - loudestAbove;
      if (drop >= MIN_DROP_DB && (best === null || drop > best.drop)) best = { cutoff, below, drop };
    }
    if (best === null) return null;
    // The edge: the first 100 Hz band, from the guard below the candidate, halfway down the cliff.
    for (let from = best.cutoff - GUARD_HZ; from < best.cutoff + GUARD_HZ; from += 100) {
      if (this.levelDb(from, from + 100) < best.below - best.drop / 2) return from;
    }
    return best.cutoff;
  }
}
