import FFT from 'fft.js';

/** Samples per transform; excerpts are read in whole frames of it. */
export const FFT_SIZE = 4096;

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

/** The average power spectrum of everything added, and the low-pass cut-off read from it. */
export class Spectrum {
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
