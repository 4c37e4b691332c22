import { Readable } from 'node:stream';

/**
 * Real audio files built in memory for upload tests (no encoder on the machine is needed), and a
 * multipart/form-data encoder for app.inject.
 */
export interface PcmShape {
  sampleRate: number;
  channels: number;
  bitDepth: 8 | 16 | 24 | 32;
  seconds: number;
}

export const STEREO_CD: PcmShape = { sampleRate: 44100, channels: 2, bitDepth: 16, seconds: 1 };
export const MONO_22K: PcmShape = { sampleRate: 22050, channels: 1, bitDepth: 16, seconds: 2 };

/** A 440 Hz tone, as signed integer samples per channel. */
function tone(shape: PcmShape): number[] {
  const amplitude = 2 ** (shape.bitDepth - 1) * 0.5;
  const frames = Math.round(shape.sampleRate * shape.seconds);
  const samples: number[] = [];
  for (let i = 0; i < frames; i++)
    samples.push(Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / shape.sampleRate)));
  return samples;
}

/** 8-bit WAV samples are unsigned (offset by 128); wider ones are signed little-endian. */
function writeSample(buffer: Buffer, offset: number, value: number, bytes: number): void {
  if (bytes === 1) buffer.writeUInt8(value + 128, offset);
  else buffer.writeIntLE(value, offset, bytes);
}

/**
 * A RIFF/WAVE file: `fmt ` chunk (PCM, or WAVE_FORMAT_EXTENSIBLE with the PCM sub-format, or IEEE
 * float when asked) and a `data` chunk with the tone on every channel.
 */
export function wavFile(shape: PcmShape = STEREO_CD, format: 'pcm' | 'extensible' | 'float' = 'pcm'): Buffer {
  return pcmWav(shape, tone(shape), [], format);
}

/**
 * A RIFF/WAVE file of `samples` (integers, one per frame, the same on every channel), with
 * `extraChunks` (tags, for example) between `fmt ` and `data`.
 */
export function pcmWav(
  shape: Omit<PcmShape, 'seconds'>,
  samples: readonly number[],
  extraChunks: readonly Buffer[] = [],
  format: 'pcm' | 'extensible' | 'float' = 'pcm',
): Buffer {
  const bytesPerSample = shape.bitDepth / 8;
  const blockAlign = bytesPerSample * shape.channels;
  const data = Buffer.alloc(samples.length * blockAlign);
  samples.forEach((sample, i) => {
    for (let c = 0; c < shape.channels; c++)
      writeSample(data, i * blockAlign + c * bytesPerSample, sample, bytesPerSample);
  });
  const fmt = Buffer.alloc(format === 'extensible' ? 40 : 16);
  fmt.writeUInt16LE(format === 'extensible' ? 0xfffe : format === 'float' ? 3 : 1, 0);
  fmt.writeUInt16LE(shape.channels, 2);
  fmt.writeUInt32LE(shape.sampleRate, 4);
  fmt.writeUInt32LE(shape.sampleRate * blockAlign, 8);
  fmt.writeUInt16LE(blockAlign, 12);
  fmt.writeUInt16LE(shape.bitDepth, 14);
  if (format === 'extensible') {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(shape.bitDepth, 18);
    fmt.writeUInt32LE(shape.channels === 2 ? 3 : 4, 20);
    // KSDATAFORMAT_SUBTYPE_PCM: 00000001-0000-0010-8000-00aa00389b71
    Buffer.from('0100000000001000800000aa00389b71', 'hex').copy(fmt, 24);
  }
  return riff([riffChunk('fmt ', fmt), ...extraChunks, riffChunk('data', data)]);
}

export function riffChunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
}

function riff(chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks]);
  const header = Buffer.alloc(8);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

/** Writes numbers of any bit width, most significant bit first, as FLAC does. */
export class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  write(value: number, bits: number): void {
    for (let bit = bits - 1; bit >= 0; bit--) {
      this.current = (this.current << 1) | (Math.floor(value / 2 ** bit) & 1);
      if (++this.used === 8) this.flush();
    }
  }

  /** Signed sample in two's complement. */
  writeSigned(value: number, bits: number): void {
    this.write(value < 0 ? value + 2 ** bits : value, bits);
  }

  alignToByte(): void {
    while (this.used !== 0) this.write(0, 1);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.bytes);
  }

  private flush(): void {
    this.bytes.push(this.current);
    this.current = 0;
    this.used = 0;
  }
}

export function crc8(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

export function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

const FLAC_BLOCK = 4096;

function flacFrame(shape: PcmShape, samples: number[], frameNumber: number): Buffer {
  const header = new BitWriter();
  header.write(0xfff8, 16); // sync code, fixed block size
  header.write(0b0111, 4); // block size: 16 bits at the end of the header
  header.write(0b0000, 4); // sample rate: from STREAMINFO
  header.write(shape.channels - 1, 4); // independent channels
  header.write(0b000, 3); // sample size: from STREAMINFO
  header.write(0, 1);
  header.write(frameNumber, 8); // frame number (UTF-8 coded; one byte below 128)
  header.write(samples.length - 1, 16);
  const headerBytes = header.toBuffer();
  const body = new BitWriter();
  for (let c = 0; c < shape.channels; c++) {
    body.write(0b00000010, 8); // verbatim subframe, no wasted bits
    for (const sample of samples) body.writeSigned(sample, shape.bitDepth);
  }
  body.alignToByte();
  const withoutCrc = Buffer.concat([headerBytes, Buffer.from([crc8(headerBytes)]), body.toBuffer()]);
  const crc = Buffer.alloc(2);
  crc.writeUInt16BE(crc16(withoutCrc), 0);
  return Buffer.concat([withoutCrc, crc]);
}

/** A FLAC stream: STREAMINFO, then frames of verbatim subframes holding the tone. */
export function flacFile(shape: PcmShape = STEREO_CD): Buffer {
  const samples = tone(shape);
  const info = new BitWriter();
  info.write(FLAC_BLOCK, 16);
  info.write(FLAC_BLOCK, 16);
  info.write(0, 24); // frame sizes unknown
  info.write(0, 24);
  info.write(shape.sampleRate, 20);
  info.write(shape.channels - 1, 3);
  info.write(shape.bitDepth - 1, 5);
  info.write(samples.length, 36);
  for (let i = 0; i < 16; i++) info.write(0, 8); // MD5 unknown
  const blockHeader = Buffer.from([0x80, 0, 0, 34]); // last metadata block, STREAMINFO, 34 bytes
  const frames: Buffer[] = [];
  for (let start = 0; start < samples.length; start += FLAC_BLOCK) {
    frames.push(flacFrame(shape, samples.slice(start, start + FLAC_BLOCK), frames.length));
  }
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), blockHeader, info.toBuffer(), ...frames]);
}

/** An MP3: an ID3v2 tag and MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz) of silence. */
export function mp3File(frames = 40): Buffer {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
  const frame = Buffer.alloc(417);
  Buffer.from([0xff, 0xfb, 0x90, 0x64]).copy(frame);
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)]);
}

export interface FilePart {
  field?: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

export type FormEntry = [name: string, value: string] | FilePart;

const BOUNDARY = '----labeldesk-test-boundary-7MA4YWxkTrZu0gW';

function partHeader(entry: FormEntry): string {
  if (Array.isArray(entry))
    return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${entry[0]}"\r\n\r\n`;
  return (
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${entry.field ?? 'audio'}"; filename="${entry.filename}"\r\n` +
    `Content-Type: ${entry.contentType}\r\n\r\n`
  );
}

/** A multipart/form-data body with the entries in the given order (text fields may follow the file). */
export function multipart(entries: FormEntry[]): { payload: Buffer; headers: Record<string, string> } {
  const parts = entries.flatMap((entry) => [
    Buffer.from(partHeader(entry)),
    Array.isArray(entry) ? Buffer.from(entry[1]) : entry.content,
    Buffer.from('\r\n'),
  ]);
  return {
    payload: Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

export function wavPart(content: Buffer = wavFile(), filename = 'night-drive.wav'): FilePart {
  return { filename, contentType: 'audio/wav', content };
}

/**
 * A multipart body that streams a WAV header followed by `totalBytes` of file in all, without
 * holding it in memory: for the size limit.
 */
export function oversizedUpload(totalBytes: number): { payload: Readable; headers: Record<string, string> } {
  const head = wavFile({ ...STEREO_CD, seconds: 0.01 });
  const chunkSize = 1024 * 1024;
  const zeros = Buffer.alloc(chunkSize);
  async function* body() {
    yield Buffer.from(`${partHeader(['title', 'Too long'])}Too long\r\n`);
    yield Buffer.from(partHeader(wavPart(head, 'huge.wav')));
    yield head;
    for (let sent = head.length; sent < totalBytes; sent += chunkSize) {
      yield sent + chunkSize <= totalBytes ? zeros : zeros.subarray(0, totalBytes - sent);
    }
    yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  }
  return {
    payload: Readable.from(body()),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}
