import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors } from '../../errors.ts';

/**
 * Uploads are received into the media store's local temp folder (`MediaObjects.tempDir`), hashed
 * as they stream, checked there (the image and audio decoders need random access), and only then
 * put into the store under their content hash, so a failed or refused upload leaves nothing in it.
 */
export interface ReceivedFile {
  /** Where the bytes are until they are kept or discarded. */
  readonly tempPath: string;
  readonly sha256: string;
  readonly bytes: number;
}

class TooLarge extends Error {}

/** A fresh path in the temp folder, for a file written before it is put into the store. */
export async function newTempPath(tempDir: string): Promise<string> {
  await mkdir(tempDir, { recursive: true });
  return join(tempDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
}

/**
 * Streams `source` to a temporary file, hashing and counting as it goes; beyond `maxBytes` the
 * transfer stops, the partial file is removed and 413 `payload_too_large` is thrown.
 */
export async function receiveToTemp(
  tempDir: string,
  source: Readable,
  maxBytes: number,
  what: string,
): Promise<ReceivedFile> {
  const tempPath = await newTempPath(tempDir);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    await pipeline(
      source,
      async function* count(chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          if (bytes > maxBytes) throw new TooLarge();
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(tempPath),
    );
  } catch (error) {
    await rm(tempPath, { force: true });
    if (error instanceof TooLarge) {
      throw errors.payloadTooLarge(`${what} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    }
    throw error;
  }
  return { tempPath, sha256: hash.digest('hex'), bytes };
}

export async function discardFile(file: ReceivedFile): Promise<void> {
  await rm(file.tempPath, { force: true });
}

/**
 * Left in the temp folder by a process that stopped mid-upload: removed at start. A file still
 * being written keeps a fresh modification time (another server on this folder may be receiving it).
 */
const ABANDONED_TEMP_AFTER_MS = 10 * 60 * 1000;

/** Removes what stopped uploads left in the temp folder; returns how many files went. */
export async function sweepTempFolder(tempDir: string, now: Date): Promise<number> {
  const names = await readdir(tempDir).catch(() => []);
  const removed = await Promise.all(
    names.map(async (name) => {
      const path = join(tempDir, name);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile() || now.getTime() - info.mtimeMs < ABANDONED_TEMP_AFTER_MS) return false;
      await rm(path, { force: true });
      return true;
    }),
  );
  return removed.filter(Boolean).length;
}
