import type { Readable } from 'node:stream';
import type { Config, MediaLocation } from '../../config.ts';
import { localMediaObjects } from './media.local.ts';
import { s3MediaObjects } from './media.s3.ts';

/**
 * Stored media (covers, audio) are objects named by content: `<kind>/<aa>/<sha256>.<ext>`, resized
 * covers under `<kind>/w<width>/<aa>/<sha256>.<ext>` (the `w` never collides with the two hex digits
 * of the originals). A sandbox copy or a re-upload of the same bytes shares one object. The same
 * keys in a local folder and in a bucket, so `labeldesk media migrate` copies names as they are.
 */
export type MediaKind = 'covers' | 'audio';

export function objectKey(kind: MediaKind, sha256: string, ext: string): string {
  return `${kind}/${sha256.slice(0, 2)}/${sha256}.${ext}`;
}

export function variantKey(kind: MediaKind, sha256: string, ext: string, width: number): string {
  return `${kind}/w${width}/${sha256.slice(0, 2)}/${sha256}.${ext}`;
}

export interface OpenedObject {
  readonly stream: Readable;
  readonly bytes: number;
}

/** One interface over the two places media may live; every process reads and writes through it. */
export interface MediaObjects {
  /**
   * A local folder for files on their way in (uploads being received and checked, variants being
   * rendered) and for copies made for random access: always on this machine's disk.
   */
  readonly tempDir: string;
  /** Streams a whole local file in under `key`; `move` lets the store take the file itself. */
  put(key: string, path: string, mode: 'move' | 'copy'): Promise<void>;
  has(key: string): Promise<boolean>;
  /** The object opened to be sent, or null when there is none. */
  open(key: string): Promise<OpenedObject | null>;
  /**
   * Runs `use` with a local file holding the object's bytes, for readers that need random access
   * (image and audio decoders); null when there is no such object. A copy is removed afterwards.
   */
  withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T | null>;
  remove(keys: readonly string[]): Promise<void>;
  /** Every key, in no particular order (files on their way in are not objects). */
  keys(): AsyncIterable<string>;
  /** Where the objects are, for messages: `file:///…` or `s3://bucket/prefix`. */
  readonly url: string;
}

const opened = new WeakMap<Config, MediaObjects>();

/**
 * Objects in a folder or bucket other than the media's own (the DDEX outbox), through the same two
 * stores; buckets are reached with the configuration's S3 settings.
 */
export function objectsAt(location: MediaLocation, config: Config): MediaObjects {
  return location.kind === 'file'
    ? localMediaObjects(location.root)
    : s3MediaObjects(location, config.s3, config.dataDir);
}

/**
 * The media store of a configuration: one per process (the S3 client keeps its connections), made
 * at first use, so a command that touches no media never loads the SDK.
 */
export function mediaObjects(config: Config): MediaObjects {
  let objects = opened.get(config);
  if (!objects) {
    objects = objectsAt(config.media, config);
    opened.set(config, objects);
  }
  return objects;
}
