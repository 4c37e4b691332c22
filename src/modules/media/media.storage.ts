import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors } from '../../errors.ts';

/**
 * Stored media (covers, audio) live under `<data dir>/media/<kind>/<aa>/<sha256>.<ext>`: named by
 * content, so a sandbox copy or a re-upload of the same bytes shares one file. A file is written to
 * `media/tmp` first and renamed into place only once it is whole and checked, so a failed or
 * refused upload leaves nothing behind.
 */
export type MediaKind = 'covers' | 'audio';

export interface ReceivedFile {
  /** Where the bytes are until they are kept or discarded. */
  readonly tempPath: string;
  readonly sha256: string;
  readonly bytes: number;
}

export function mediaRoot(dataDir: string): string {
  return join(dataDir, 'media');
}

export function mediaPath(dataDir: string, kind: MediaKind, sha256: string, ext: string): string {
  return join(mediaRoot(dataDir), kind, sha256.slice(0, 2), `${sha256}.${ext}`);
}

class TooLarge extends Error {}

/**
 * Streams `source` to a temporary file, hashing and counting as it goes; beyond `maxBytes` the
 * transfer stops, the partial file is removed and 413 `payload_too_large` is thrown.
 */
export async function receiveToTemp(
  dataDir: string,
  source: Readable,
  maxBytes: number,
  what: string,
): Promise<ReceivedFile> {
  const tempPath = join(mediaRoot(dataDir), 'tmp', `${Date.now()}-${randomBytes(8).toString('hex')}`);
  await mkdir(dirname(tempPath), { recursive: true });
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

/** Moves a checked upload into its content-addressed place; the same content already there is kept. */
export async function keepFile(
  dataDir: string,
  file: ReceivedFile,
  kind: MediaKind,
  ext: string,
): Promise<string> {
  const target = mediaPath(dataDir, kind, file.sha256, ext);
  await mkdir(dirname(target), { recursive: true });
  await rename(file.tempPath, target);
  return target;
}

export async function discardFile(file: ReceivedFile): Promise<void> {
  await rm(file.tempPath, { force: true });
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export interface OpenedFile {
  readonly stream: ReadStream;
  readonly bytes: number;
}

/**
 * A stored file opened to be sent, or null when it is not there. Opened before its size is read, so
 * a file removed meanwhile is still sent whole (or not found), never cut short.
 */
export async function openStoredFile(path: string): Promise<OpenedFile | null> {
  const handle = await open(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!handle) return null;
  try {
    const { size } = await handle.stat();
    return { stream: handle.createReadStream(), bytes: size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Removes a stored file; callers check first that no row refers to it any more. */
export async function removeStoredFile(
  dataDir: string,
  kind: MediaKind,
  sha256: string,
  ext: string,
): Promise<void> {
  await rm(mediaPath(dataDir, kind, sha256, ext), { force: true });
}

/**
 * A resized copy of a stored file, beside the originals under `<kind>/w<width>/`: the `w` prefix
 * never collides with the two-hex-digit folders of the originals.
 */
export function variantPath(
  dataDir: string,
  kind: MediaKind,
  sha256: string,
  ext: string,
  width: number,
): string {
  return join(mediaRoot(dataDir), kind, `w${width}`, sha256.slice(0, 2), `${sha256}.${ext}`);
}

/** Removes every resized copy of a stored file; like removeStoredFile, once no row refers to it. */
export async function removeVariants(
  dataDir: string,
  kind: MediaKind,
  sha256: string,
  ext: string,
): Promise<void> {
  const kindDir = join(mediaRoot(dataDir), kind);
  const entries = await readdir(kindDir).catch(() => []);
  const widths = entries.filter((entry) => /^w\d+$/.test(entry)).map((entry) => Number(entry.slice(1)));
  await Promise.all(
    widths.map((width) => rm(variantPath(dataDir, kind, sha256, ext, width), { force: true })),
  );
}

/**
 * Left in `media/tmp` by a process that stopped mid-upload: removed at start. A file still being
 * written keeps a fresh modification time (another server on this data dir may be receiving it).
 */
const ABANDONED_TEMP_AFTER_MS = 10 * 60 * 1000;

/** Removes what stopped uploads left in `media/tmp`; returns how many files went. */
export async function sweepTempFolder(dataDir: string, now: Date): Promise<number> {
  const tempDir = join(mediaRoot(dataDir), 'tmp');
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

/**
 * A fresh path under `media/tmp` for a file written elsewhere than from an upload (a variant): it is
 * renamed into place when whole, so a reader never sees half of it.
 */
export async function newTempPath(dataDir: string): Promise<string> {
  const tempDir = join(mediaRoot(dataDir), 'tmp');
  await mkdir(tempDir, { recursive: true });
  return join(tempDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
}
