import type { FileHandle } from 'node:fs/promises';

/**
 * Just enough of a FLAC decoder (RFC 9639) to turn a short run of frames, found anywhere in the
 * file, back into samples for the spectral check; no dependency decodes FLAC samples, and
 * music-metadata reads only the tags and STREAMINFO. Every frame is checked by its CRC-8 (header)
 * and CRC-16 (whole frame) before its samples are used, so a false sync code in the middle of
 * compressed data is skipped rather than decoded into noise.
 */
export class Undecodable extends Error {}

export interface FlacStreamInfo {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  /** Inter-channel samples in the stream; 0 when the encoder did not know. */
  readonly totalSamples: number;
  /** The byte where the first frame starts (after the metadata blocks). */
  readonly audioStart: number;
}

/** Metadata blocks walked before giving up; real files have a handful. */
const MAX_METADATA_BLOCKS = 256;

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new Undecodable('FLAC header cut short');
  return buffer;
}

/** The ID3v2 tag some taggers put in front of "fLaC": its size is four 7-bit bytes. */
async function id3Length(file: FileHandle): Promise<number> {
  const head = await readAt(file, 0, 10);
  if (head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size =
    ((head.readUInt8(6) & 0x7f) << 21) |
    ((head.readUInt8(7) & 0x7f) << 14) |
    ((head.readUInt8(8) & 0x7f) << 7) |
    (head.readUInt8(9) & 0x7f);
  return 10 + size + (head.readUInt8(5) & 0x10 ? 10 : 0);
}

export async function readFlacStreamInfo(file: FileHandle): Promise<FlacStreamInfo> {
  let position = await id3Length(file);
  if ((await readAt(file, position, 4)).toString('latin1') !== 'fLaC') throw new Undecodable('not FLAC');
  position += 4;
  let info: Omit<FlacStreamInfo, 'audioStart'> | undefined;
  for (let i = 0; i < MAX_METADATA_BLOCKS; i++) {
    const header = await readAt(file, position, 4);
    const type = header.readUInt8(0) & 0x7f;
    const length = header.readUIntBE(1, 3);
    if (type === 0) {
      const block = await readAt(file, position + 4, 34);
      const bits = new BitReader(block, 0, block.length);
      bits.skip(16 + 16 + 24 + 24); // block sizes and frame sizes
      const sampleRate = bits.read(20);
      const channels = bits.read(3) + 1;
      const bitsPerSample = bits.read(5) + 1;
      const totalSamples = bits.read(36);
      info = { sampleRate, channels, bitsPerSample, totalSamples };
    }
    position += 4 + length;
    if (header.readUInt8(0) & 0x80) {
      if (info === undefined || info.sampleRate === 0) throw new Undecodable('FLAC without STREAMINFO');
      return { ...info, audioStart: position };
    }
  }
  throw new Undecodable('too many FLAC metadata blocks');
}

/** Reads big-endian bit fields from a byte range; running past its end means the frame is not whole. */
class BitReader {
  private bit = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private position: number,
    private readonly end: number,
  ) {}

  get bytePosition(): number {
    return this.position;
  }

  private currentByte(): number {
    if (this.position >= this.end) throw new Undecodable('frame runs past the data');
    return this.bytes[this.position] ?? 0;
  }

  /** An unsigned field of up to 53 bits (so numbers stay exact). */
  read(count: number): number {
    let value = 0;
    let remaining = count;
    while (remaining > 0) {
      const available = 8 - this.bit;
      const take = Math.min(available, remaining);
      const bits = (this.currentByte() >> (available - take)) & ((1 << take) - 1);
      value = value * 2 ** take + bits;
      remaining -= take;
      this.bit += take;
      if (this.bit === 8) {
        this.bit = 0;
        this.position++;
      }
    }
    return value;
  }

  readSigned(count: number): number {
    if (count === 0) return 0;
    const value = this.read(count);
    return value >= 2 ** (count - 1) ? value - 2 ** count : value;
  }

  skip(count: number): void {
    this.read(count);
  }

  /** Zero bits before the next one bit (Rice quotients, wasted-bit counts). */
  readUnary(): number {
    let zeros = 0;
    for (;;) {
      const rest = this.currentByte() & (0xff >> this.bit);
      if (rest === 0) {
        zeros += 8 - this.bit;
        this.bit = 0;
        this.position++;
        if (zeros > 1 << 24) throw new Undecodable('Rice quotient out of range');
        continue;
      }
      const leading = Math.clz32(rest) - 24 - this.bit;
      zeros += leading;
      this.bit += leading + 1;
      if (this.bit === 8) {
        this.bit = 0;
        this.position++;
      }
      return zeros;
    }
  }

  alignToByte(): void {
    if (this.bit !== 0) {
      this.bit = 0;
      this.position++;
    }
  }
}

function crc8(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i] ?? 0;
    for (let b = 0; b < 8; b++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

const CRC16_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

function crc16(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc = ((crc << 8) & 0xffff) ^ (CRC16_TABLE[((crc >> 8) ^ (bytes[i] ?? 0)) & 0xff] ?? 0);
  }
  return crc;
}

const SAMPLE_SIZES = [0, 8, 12, 0, 16, 20, 24, 32] as const;
/**
 * How many continuation bytes the coded frame number has is the index of the first limit its first
 * byte is under: below 0x80 none, 0xC0-0xDF one, ... 0xFE six. 0x80-0xBF and 0xFF never start one.
 */
const UTF8_CONTINUATION_LIMITS = [0x80, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff];

interface FrameHeader {
  readonly blockSize: number;
  readonly channelAssignment: number;
  readonly bitsPerSample: number;
}

/** The frame header at `start`, checked by its CRC-8, and a reader left at the first subframe. */
function readFrameHeader(bytes: Uint8Array, start: number, end: number, info: FlacStreamInfo) {
  const bits = new BitReader(bytes, start, end);
  if (bits.read(15) !== 0b111111111111100) throw new Undecodable('no frame sync');
  bits.skip(1); // blocking strategy: the frame number is not needed here
  const blockSizeCode = bits.read(4);
  const sampleRateCode = bits.read(4);
  const channelAssignment = bits.read(4);
  const sampleSizeCode = bits.read(3);
  if (bits.read(1) !== 0 || blockSizeCode === 0 || sampleRateCode === 15 || channelAssignment > 10) {
    throw new Undecodable('reserved value in frame header');
  }
  if (sampleSizeCode === 3) throw new Undecodable('reserved sample size');
  // The coded frame or sample number: UTF-8-like, 1 to 7 bytes; only its length matters here.
  const first = bits.read(8);
  const continuation = UTF8_CONTINUATION_LIMITS.findIndex((limit) => first < limit);
  if (continuation < 0 || (first >= 0x80 && first < 0xc0)) throw new Undecodable('bad frame number');
  for (let i = 0; i < continuation; i++) {
    if ((bits.read(8) & 0xc0) !== 0x80) throw new Undecodable('bad frame number');
  }
  let blockSize: number;
  if (blockSizeCode === 1) blockSize = 192;
  else if (blockSizeCode <= 5) blockSize = 576 * 2 ** (blockSizeCode - 2);
  else if (blockSizeCode === 6) blockSize = bits.read(8) + 1;
  else if (blockSizeCode === 7) blockSize = bits.read(16) + 1;
  else blockSize = 256 * 2 ** (blockSizeCode - 8);
  if (sampleRateCode === 12) bits.skip(8);
  else if (sampleRateCode === 13 || sampleRateCode === 14) bits.skip(16);
  const headerEnd = bits.bytePosition;
  if (bits.read(8) !== crc8(bytes, start, headerEnd)) throw new Undecodable('frame header CRC');
  const bitsPerSample = sampleSizeCode === 0 ? info.bitsPerSample : (SAMPLE_SIZES[sampleSizeCode] ?? 0);
  const header: FrameHeader = { blockSize, channelAssignment, bitsPerSample };
  return { header, bits };
}

function readResidual(bits: BitReader, blockSize: number, order: number, out: Float64Array): void {
  const method = bits.read(2);
  if (method > 1) throw new Undecodable('reserved residual coding');
  const parameterBits = method === 0 ? 4 : 5;
  const escapeCode = method === 0 ? 15 : 31;
  const partitionOrder = bits.read(4);
  const perPartition = blockSize >> partitionOrder;
  if (perPartition << partitionOrder !== blockSize || perPartition < order) {
    throw new Undecodable('bad residual partition');
  }
  let index = order;
  for (let partition = 0; partition < 1 << partitionOrder; partition++) {
    const count = partition === 0 ? perPartition - order : perPartition;
    const parameter = bits.read(parameterBits);
    if (parameter === escapeCode) {
      const width = bits.read(5);
      for (let i = 0; i < count; i++) out[index++] = bits.readSigned(width);
      continue;
    }
    const scale = 2 ** parameter;
    for (let i = 0; i < count; i++) {
      const folded = bits.readUnary() * scale + (parameter === 0 ? 0 : bits.read(parameter));
      out[index++] = folded % 2 === 0 ? folded / 2 : -(folded + 1) / 2;
    }
  }
}

/** Fixed predictors of order 0 to 4, as integer coefficients on the previous samples. */
const FIXED_COEFFICIENTS: readonly (readonly number[])[] = [[], [1], [2, -1], [3, -3, 1], [4, -6, 4, -1]];

function predict(samples: Float64Array, order: number, coefficients: readonly number[], shift: number): void {
  const divisor = 2 ** shift;
  for (let i = order; i < samples.length; i++) {
    let sum = 0;
    for (let j = 0; j < order; j++) sum += (coefficients[j] ?? 0) * (samples[i - 1 - j] ?? 0);
    samples[i] = (samples[i] ?? 0) + Math.floor(sum / divisor);
  }
}

function readSubframe(bits: BitReader, blockSize: number, sampleBits: number): Float64Array {
  if (bits.read(1) !== 0) throw new Undecodable('subframe padding');
  const type = bits.read(6);
  const wasted = bits.read(1) === 1 ? bits.readUnary() + 1 : 0;
  const width = sampleBits - wasted;
  if (width <= 0) throw new Undecodable('wasted bits');
  const samples = new Float64Array(blockSize);
  if (type === 0) {
    samples.fill(bits.readSigned(width));
  } else if (type === 1) {
    for (let i = 0; i < blockSize; i++) samples[i] = bits.readSigned(width);
  } else if (type >= 8 && type <= 12) {
    const order = type - 8;
    if (order > blockSize) throw new Undecodable('predictor order');
    for (let i = 0; i < order; i++) samples[i] = bits.readSigned(width);
    readResidual(bits, blockSize, order, samples);
    predict(samples, order, FIXED_COEFFICIENTS[order] ?? [], 0);
  } else if (type >= 32) {
    const order = type - 31;
    if (order > blockSize) throw new Undecodable('predictor order');
    for (let i = 0; i < order; i++) samples[i] = bits.readSigned(width);
    const precision = bits.read(4) + 1;
    if (precision === 16) throw new Undecodable('LPC precision');
    const shift = bits.readSigned(5);
    if (shift < 0) throw new Undecodable('negative LPC shift');
    const coefficients = Array.from({ length: order }, () => bits.readSigned(precision));
    readResidual(bits, blockSize, order, samples);
    predict(samples, order, coefficients, shift);
  } else {
    throw new Undecodable('reserved subframe type');
  }
  if (wasted > 0) for (let i = 0; i < blockSize; i++) samples[i] = (samples[i] ?? 0) * 2 ** wasted;
  return samples;
}

const LEFT_SIDE = 8;
const SIDE_RIGHT = 9;
const MID_SIDE = 10;

/** Undoes stereo decorrelation in place: the two arrays become left and right. */
function restoreStereo(assignment: number, first: Float64Array, second: Float64Array): void {
  for (let i = 0; i < first.length; i++) {
    const a = first[i] ?? 0;
    const b = second[i] ?? 0;
    if (assignment === LEFT_SIDE) {
      second[i] = a - b;
    } else if (assignment === SIDE_RIGHT) {
      first[i] = a + b;
    } else {
      const mid = a * 2 + (Math.abs(b) % 2);
      first[i] = (mid + b) / 2;
      second[i] = (mid - b) / 2;
    }
  }
}

interface DecodedFrame {
  /** One array per channel, in integer sample units. */
  readonly channels: Float64Array[];
  readonly bitsPerSample: number;
  /** The byte after the frame. */
  readonly end: number;
}

/** Decodes the frame starting at `start`, or throws Undecodable when it is not a whole, valid frame. */
function decodeFrame(bytes: Uint8Array, start: number, end: number, info: FlacStreamInfo): DecodedFrame {
  const { header, bits } = readFrameHeader(bytes, start, end, info);
  const { blockSize, channelAssignment, bitsPerSample } = header;
  const count = channelAssignment <= 7 ? channelAssignment + 1 : 2;
  if (count !== info.channels) throw new Undecodable('channel count differs from STREAMINFO');
  const channels: Float64Array[] = [];
  for (let channel = 0; channel < count; channel++) {
    const side =
      (channelAssignment === LEFT_SIDE && channel === 1) ||
      (channelAssignment === SIDE_RIGHT && channel === 0) ||
      (channelAssignment === MID_SIDE && channel === 1);
    channels.push(readSubframe(bits, blockSize, bitsPerSample + (side ? 1 : 0)));
  }
  const [first, second] = channels;
  if (channelAssignment >= LEFT_SIDE && first && second) restoreStereo(channelAssignment, first, second);
  bits.alignToByte();
  const crcAt = bits.bytePosition;
  if (bits.read(16) !== crc16(bytes, start, crcAt)) throw new Undecodable('frame CRC');
  return { channels, bitsPerSample, end: crcAt + 2 };
}

/**
 * Decodes whole frames from `bytes` (a window read from anywhere in the stream), starting at the
 * first valid frame, until `wanted` samples per channel are in hand or the window ends. Returns
 * the samples of each channel, normalised to [-1, 1).
 */
export function decodeWindow(bytes: Uint8Array, info: FlacStreamInfo, wanted: number): Float64Array[] {
  const out = Array.from({ length: info.channels }, () => new Float64Array(wanted));
  let filled = 0;
  let position = 0;
  let locked = false;
  while (filled < wanted && position < bytes.length - 1) {
    if (!locked && !((bytes[position] ?? 0) === 0xff && ((bytes[position + 1] ?? 0) & 0xfe) === 0xf8)) {
      position++;
      continue;
    }
    let frame: DecodedFrame;
    try {
      frame = decodeFrame(bytes, position, bytes.length, info);
    } catch (error) {
      if (!(error instanceof Undecodable)) throw error;
      // A false sync code, or the last frame cut by the window's end: search on from the next byte.
      locked = false;
      position++;
      continue;
    }
    locked = true;
    const scale = 2 ** (frame.bitsPerSample - 1);
    const take = Math.min(wanted - filled, frame.channels[0]?.length ?? 0);
    frame.channels.forEach((samples, channel) => {
      const target = out[channel];
      if (target === undefined) return;
      for (let i = 0; i < take; i++) target[filled + i] = (samples[i] ?? 0) / scale;
    });
    filled += take;
    position = frame.end;
  }
  return out.map((samples) => samples.subarray(0, filled));
}
