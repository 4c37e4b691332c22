import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError, errors } from '../../errors.ts';
import { isSystemError } from '../../http/uploads.ts';
import { MAX_COVER_BYTES } from './covers.service.ts';

export const IMAGE_TYPES = ['image/jpeg', 'image/png'];
export const COVER_FIELD = 'cover';

/**
 * Limits of the multipart parser. The file may reach one byte over the limit, so that the
 * receiving code sees it and answers 413 (at exactly the limit busboy would cut the file short
 * without an error).
 */
export const MULTIPART_LIMITS = { fileSize: MAX_COVER_BYTES + 1, files: 1, parts: 10 };

const tooLarge = () => errors.payloadTooLarge(`The cover is larger than ${MAX_COVER_BYTES / 1024 / 1024} MB`);

function clientBodyError(error: unknown): unknown {
  if (error instanceof ApiError || isSystemError(error)) return error;
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return errors.payloadTooLarge('The form has too many parts; send only the file field cover');
  }
  return errors.invalid('body', 'The multipart body is malformed or was cut short');
}

async function* relabelErrors(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* chunks;
  } catch (error) {
    throw clientBodyError(error);
  }
}

/**
 * The bytes of an upload, with a broken body reported as the client's error. `keepSourceOpen`
 * leaves the request stream alive when reading stops early, so a 413 still reaches the client.
 */
function uploadStream(source: Readable, keepSourceOpen: boolean): Readable {
  return Readable.from(relabelErrors(source.iterator({ destroyOnReturn: !keepSourceOpen })));
}

/** The multipart file field `cover`; anything else in its place is a 400. */
async function openMultipart(request: FastifyRequest): Promise<Readable> {
  const part = await request.file().catch((error: unknown) => {
    throw clientBodyError(error);
  });
  if (part?.fieldname !== COVER_FIELD) {
    part?.file.resume();
    throw errors.invalid(
      COVER_FIELD,
      `The multipart body needs the image in a file field named ${COVER_FIELD}`,
    );
  }
  // Destroying the part when reading stops is what lets the multipart parser finish.
  return uploadStream(part.file, false);
}

async function openRaw(request: FastifyRequest, body: Readable): Promise<Readable> {
  // A declared length over the limit is refused before a byte is read.
  if (Number(request.headers['content-length']) > MAX_COVER_BYTES) throw tooLarge();
  return uploadStream(body, true);
}

/**
 * How to read the uploaded image, decided by the form of the request (the raw image or a
 * multipart form); 415 for any other body. Reading starts only when the result is called.
 */
export function uploadOf(request: FastifyRequest): () => Promise<Readable> {
  if (request.isMultipart()) return () => openMultipart(request);
  const body = request.body;
  if (body instanceof Readable) return () => openRaw(request, body);
  throw errors.unsupportedMediaType(request.headers['content-type'] ?? '(none)');
}
