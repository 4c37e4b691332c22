import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import type { MediaLocation, S3Settings } from '../../config.ts';
import type { MediaObjects, OpenedObject } from './media.objects.ts';

type S3Sdk = typeof import('@aws-sdk/client-s3');
type Bucket = Extract<MediaLocation, { kind: 's3' }>;

/**
 * A 200 MB WAV goes up in parts of this size, at most QUEUE_SIZE at a time: the upload holds about
 * PART_SIZE x QUEUE_SIZE in memory whatever the file's size (S3's smallest part is 5 MB).
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;
/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1000;

interface Connection {
  readonly sdk: S3Sdk;
  readonly client: S3Client;
}

/** The SDK is loaded at the first call, so installations that keep media on disk never load it. */
async function connect(settings: S3Settings): Promise<Connection> {
  const sdk = await import('@aws-sdk/client-s3');
  const client = new sdk.S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // The SDK's default CRC checksums on every request are not understood by every S3-compatible
    // store (MinIO before 2024, Ceph, s3rver); content is checked by its SHA-256 name anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { sdk, client };
}

function isMissing(sdk: S3Sdk, error: unknown): boolean {
  return (
    error instanceof sdk.NoSuchKey ||
    (error instanceof sdk.S3ServiceException && error.$metadata.httpStatusCode === 404)
  );
}

function asReadable(body: unknown): Readable {
  if (body instanceof Readable) return body;
  throw new Error('the S3 client returned a body that is not a Node stream');
}

/**
 * Objects in a bucket under a key prefix (`s3://bucket/prefix`), for installations of several
 * processes or machines. Files on their way in wait in `<data dir>/media/tmp` on this machine.
 */
export function s3MediaObjects(bucket: Bucket, settings: S3Settings, dataDir: string): MediaObjects {
  let connection: Promise<Connection> | null = null;
  const connected = () => {
    connection ??= connect(settings);
    return connection;
  };
  const tempDir = join(dataDir, 'media', 'tmp');
  const base = bucket.prefix === '' ? '' : `${bucket.prefix}/`;
  const Bucket = bucket.bucket;

  async function has(key: string): Promise<boolean> {
    const { sdk, client } = await connected();
    try {
      await client.send(new sdk.HeadObjectCommand({ Bucket, Key: base + key }));
      return true;
    } catch (error) {
      if (isMissing(sdk, error)) return false;
      throw error;
    }
  }

  async function open(key: string): Promise<OpenedObject | null> {
    const { sdk, client } = await connected();
    try {
      const object = await client.send(new sdk.GetObjectCommand({ Bucket, Key: base + key }));
      return { stream: asReadable(object.Body), bytes: object.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(sdk, error)) return null;
      throw error;
    }
  }

  return {
    tempDir,
    url: `s3://${Bucket}/${bucket.prefix}`,
    async put(key, path, mode) {
      // Named by content: an object already under this key holds these bytes.
      if (!(await has(key))) {
        const { client } = await connected();
        const { Upload } = await import('@aws-sdk/lib-storage');
        await new Upload({
          client,
          params: { Bucket, Key: base + key, Body: createReadStream(path) },
          partSize: PART_SIZE,
          queueSize: QUEUE_SIZE,
        }).done();
      }
      if (mode === 'move') await rm(path, { force: true });
    },
    has,
    open,
    async withLocalFile(key, use) {
      const object = await open(key);
      if (!object) return null;
      await mkdir(tempDir, { recursive: true });
      const copy = join(tempDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
      try {
        await pipeline(object.stream, createWriteStream(copy));
        return await use(copy);
      } finally {
        await rm(copy, { force: true });
      }
    },
    async remove(keys) {
      const { sdk, client } = await connected();
      for (let start = 0; start < keys.length; start += DELETE_BATCH) {
        const batch = keys.slice(start, start + DELETE_BATCH);
        const result = await client.send(
          new sdk.DeleteObjectsCommand({
            Bucket,
            Delete: { Objects: batch.map((key) => ({ Key: base + key })), Quiet: true },
          }),
        );
        const failed = result.Errors?.[0];
        if (failed) throw new Error(`S3 did not delete ${failed.Key}: ${failed.Code} ${failed.Message}`);
      }
    },
    async *keys() {
      const { sdk, client } = await connected();
      let token: string | undefined;
      do {
        const page = await client.send(
          new sdk.ListObjectsV2Command({ Bucket, Prefix: base, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (object.Key?.startsWith(base)) yield object.Key.slice(base.length);
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}
