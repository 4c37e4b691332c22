import type { FileHandle } from 'node:fs/promises';
import { FLACDecoder } from '@wasm-audio-decoders/flac';
import CodecParser from 'codec-parser';
import { readAt, Undecodable } from './moderation.audio-file.ts';

/**
 * Short runs of FLAC frames, found anywhere in a file, turned back into samples for the spectral
 * check. codec-parser finds whole frames in a window that starts mid-frame (it checks each frame's
 * header CRC-8 and footer CRC-16, so a false sync code in compressed data is skipped), and libFLAC,
 * compiled to WebAssembly by @wasm-audio-decoders/flac, decodes them. This file only walks the
 * metadata blocks, which neither library exposes: where the frames start, and the STREAMINFO the
 * decoder needs for frames that take their sample rate or size from it.
 */

export interface FlacStream {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  /** Inter-channel samples in the stream; 0 when the encoder did not know. */
  readonly totalSamples: number;
  /** The byte where the first frame starts (after the metadata blocks). */
  readonly audioStart: number;
  /** "fLaC" and STREAMINFO alone, marked as the last metadata block: what the decoder reads first. */
  readonly header: Uint8Array;
}

/** Metadata blocks walked before giving up; real files have a handful. */
const MAX_METADATA_BLOCKS = 256;
const STREAMINFO_BYTES = 34;
const LAST_BLOCK = 0x80;

async function readHeaderBytes(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = await readAt(file, position, length);
  if (bytes.length < length) throw new Undecodable('FLAC header cut short');
  return bytes;
}

/** The ID3v2 tag some taggers put in front of "fLaC": its size is four 7-bit bytes. */
async function id3Length(file: FileHandle): Promise<number> {
  const head = await readHeaderBytes(file, 0, 10);
  if (head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size =
    ((head.readUInt8(6) & 0x7f) << 21) |
    ((head.readUInt8(7) & 0x7f) << 14) |
    ((head.readUInt8(8) & 0x7f) << 7) |
    (head.readUInt8(9) & 0x7f);
  return 10 + size + (head.readUInt8(5) & 0x10 ? 10 : 0);
}

/** STREAMINFO's packed fields (RFC 9639 section 8.2): 20-bit rate, 3-bit channels, 5-bit depth, 36-bit length. */
function streamInfoFields(block: Buffer) {
  const packed = block.readUInt32BE(10);
  return {
    sampleRate: packed >>> 12,
    channels: ((packed >>> 9) & 0x7) + 1,
    bitsPerSample: ((packed >>> 4) & 0x1f) + 1,
    totalSamples: (packed & 0xf) * 2 ** 32 + block.readUInt32BE(14),
  };
}

export async function readFlacStream(file: FileHandle): Promise<FlacStream> {
  let position = await id3Length(file);
  if ((await readHeaderBytes(file, position, 4)).toString('latin1') !== 'fLaC')
    throw new Undecodable('not FLAC');
  position += 4;
  // STREAMINFO is always the first block.
  const first = await readHeaderBytes(file, position, 4 + STREAMINFO_BYTES);
  if ((first.readUInt8(0) & 0x7f) !== 0) throw new Undecodable('FLAC without STREAMINFO');
  const streamInfo = first.subarray(4);
  const fields = streamInfoFields(streamInfo);
  if (fields.sampleRate === 0) throw new Undecodable('FLAC without a sample rate');
  const header = Buffer.concat([
    Buffer.from('fLaC', 'latin1'),
    Buffer.from([LAST_BLOCK, 0, 0, STREAMINFO_BYTES]),
    streamInfo,
  ]);
  for (let i = 0; i < MAX_METADATA_BLOCKS; i++) {
    const blockHeader = await readHeaderBytes(file, position, 4);
    position += 4 + blockHeader.readUIntBE(1, 3);
    if (blockHeader.readUInt8(0) & LAST_BLOCK) return { ...fields, audioStart: position, header };
  }
  throw new Undecodable('too many FLAC metadata blocks');
}

/** One decoder per thread: an analysis runs alone in its thread, and the WebAssembly is compiled once. */
let shared: FLACDecoder | null = null;

/**
 * A decoder that has read the stream's header and nothing else. libFLAC refuses every frame after a
 * gap in frame numbers, so each window starts from a reset decoder (about 13 ms).
 */
async function freshDecoder(stream: FlacStream): Promise<FLACDecoder> {
  shared ??= new FLACDecoder();
  await shared.ready;
  await shared.reset();
  await shared.decodeFrames([stream.header]);
  return shared;
}

/** The whole frames in a window; the last comes out of flush(), and only when its CRC-16 shows it whole. */
function* wholeFrames(window: Uint8Array): Generator<Uint8Array> {
  const parser = new CodecParser('audio/flac', { enableFrameCRC32: false });
  for (const frames of [parser.parseChunk(window), parser.flush()]) {
    for (let next = frames.next(); !next.done; next = frames.next()) yield next.value.data;
  }
}

/**
 * Decodes whole frames from `window` (bytes read from anywhere in the stream), from the first
 * valid frame, until `wanted` samples per channel are in hand or the window ends. Frames are
 * decoded one at a time, so a window of tiny frames (digital silence compresses to a few bytes
 * per frame) never expands past `wanted`. Samples are normalised to [-1, 1) as the WAV reader
 * does them (integer / 2^(bits-1)), so the same sound gives the same spectrum in either format.
 */
export async function decodeFlacWindow(
  stream: FlacStream,
  window: Uint8Array,
  wanted: number,
): Promise<Float64Array[]> {
  const decoder = await freshDecoder(stream);
  const parts = Array.from({ length: stream.channels }, (): Float32Array[] => []);
  let filled = 0;
  for (const frame of wholeFrames(window)) {
    if (filled >= wanted) break;
    const decoded = await decoder.decodeFrames([frame]);
    if (decoded.errors.length > 0) break;
    const take = Math.min(wanted - filled, decoded.samplesDecoded);
    decoded.channelData.forEach((samples, channel) => {
      parts[channel]?.push(samples.subarray(0, take));
    });
    filled += take;
  }
  return parts.map((chunks) => rescaled(chunks, filled, stream.bitsPerSample));
}

/**
 * One channel's chunks joined and rescaled: libFLAC's output is integer / (2^(bits-1) - 1), rounded
 * to 32-bit floats, from which the integer is recovered (exactly up to 16 bits, within a step beyond).
 */
function rescaled(chunks: readonly Float32Array[], length: number, bits: number): Float64Array {
  const peak = 2 ** (bits - 1);
  const out = new Float64Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    for (const value of chunk) out[offset++] = Math.round(value * (peak - 1)) / peak;
  }
  return out;
}
