import { type FileHandle, open } from 'node:fs/promises';
import type { LossyEvidence } from '../../db/schema.ts';
import { readAt, Undecodable } from './moderation.audio-file.ts';
import { decodeFlacWindow, readFlacStream } from './moderation.flac.ts';
import { FFT_SIZE, Spectrum } from './moderation.spectrum.ts';
import { lossyEncoderTag } from './moderation.tags.ts';
import { readWavExcerpt, type WavLayout, wavLayout } from './moderation.wav.ts';

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

const EXCERPTS = 4;
const EXCERPT_SECONDS = 1;
/** Left and right carry the treble of any mix; further channels add cost, not evidence. */
const ANALYSED_CHANNELS = 2;
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

async function analyseWav(file: FileHandle, layout: WavLayout, spectrum: Spectrum): Promise<void> {
  spectrum.sampleRate = layout.sampleRate;
  for (const excerpt of excerpts(layout.frames, layout.sampleRate)) {
    const channels = await readWavExcerpt(file, layout, excerpt, ANALYSED_CHANNELS);
    for (const samples of channels) spectrum.add(samples);
  }
}

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
