import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError, errors } from '../../errors.ts';
import { assertNoNulCharacter } from '../../http/text-input.ts';
import { isSystemError } from '../../http/uploads.ts';
import { discardFile, type ReceivedFile, receiveToTemp } from '../media/index.ts';

/** Audio files above this are refused with 413 (spec: WAV or FLAC up to 200 MB). */
export const MAX_AUDIO_BYTES = 200 * 1024 * 1024;
/** A text field may be as long as a whole JSON body (lyrics are the longest). */
const MAX_FIELD_BYTES = 100 * 1024;
const MAX_FIELDS = 32;

export const AUDIO_FIELD = 'audio';

/**
 * Limits of the multipart parser. The file may reach one byte over the limit, so that the
 * receiving code sees it and answers 413 (at exactly the limit busboy would cut the file short).
 */
export const MULTIPART_LIMITS = {
  fileSize: MAX_AUDIO_BYTES + 1,
  files: 1,
  fields: MAX_FIELDS,
  fieldSize: MAX_FIELD_BYTES,
  parts: MAX_FIELDS + 1,
};

export interface ReceivedAudio {
  readonly file: ReceivedFile;
  /** The file name the client gave, without any path; null when none was given. */
  readonly filename: string | null;
}

export interface TrackForm {
  readonly fields: ReadonlyMap<string, string>;
  readonly audio: ReceivedAudio | null;
}

function uploadError(error: unknown): unknown {
  if (error instanceof ApiError || isSystemError(error)) return error;
  switch (error instanceof Error && 'code' in error ? error.code : undefined) {
    case 'FST_FILES_LIMIT':
      return errors.invalid(AUDIO_FIELD, 'Send exactly one file, in the field audio');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return errors.payloadTooLarge(`The form has more than ${MAX_FIELDS} fields`);
    case 'FST_REQ_FILE_TOO_LARGE':
      return errors.payloadTooLarge(`The audio file is larger than ${MAX_AUDIO_BYTES / 1024 / 1024} MB`);
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return errors.invalid('body', 'A form field declared as application/json is not valid JSON');
  }
  return errors.invalid('body', 'The multipart body is malformed or was cut short');
}

/** The client's file name without any folders or control characters; null when nothing is left. */
export function clientFilename(raw: string | undefined): string | null {
  const name = basename((raw ?? '').replaceAll('\\', '/'))
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(0, 255);
  return name === '' ? null : name;
}

async function receiveFilePart(part: MultipartFile, tempDir: string): Promise<ReceivedAudio> {
  if (part.fieldname !== AUDIO_FIELD) {
    part.file.resume();
    throw errors.invalid(part.fieldname, `Only the file field ${AUDIO_FIELD} is accepted`);
  }
  const file = await receiveToTemp(tempDir, part.file, MAX_AUDIO_BYTES, 'The audio file');
  return { file, filename: clientFilename(part.filename) };
}

function addField(fields: Map<string, string>, part: Multipart, accepted: ReadonlySet<string>): void {
  const name = part.fieldname;
  if (part.type === 'file') return;
  if (name === AUDIO_FIELD)
    throw errors.invalid(name, 'audio must be sent as a file (a part with a filename)');
  if (!accepted.has(name)) throw errors.invalid(name, `${name} is not a field of this form`);
  if (fields.has(name)) throw errors.invalid(name, `${name} was sent more than once`);
  if (part.valueTruncated)
    throw errors.payloadTooLarge(`${name} is longer than ${MAX_FIELD_BYTES / 1024} KB`);
  assertNoNulCharacter(name, part.value);
  // A part declared application/json arrives parsed; the fields are read from text in one place.
  fields.set(name, typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
}

/**
 * Reads a multipart form in arrival order: text fields are kept, the file is streamed to a
 * temporary file as it arrives, so text fields may come before or after it. On any failure the
 * temporary file is removed before the error goes on.
 */
export async function receiveForm(
  request: FastifyRequest,
  tempDir: string,
  accepted: ReadonlySet<string>,
): Promise<TrackForm> {
  const fields = new Map<string, string>();
  let audio: ReceivedAudio | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') audio = await receiveFilePart(part, tempDir);
      else addField(fields, part, accepted);
    }
  } catch (error) {
    if (audio) await discardFile(audio.file);
    throw uploadError(error);
  }
  return { fields, audio };
}

/** The file name from `Content-Disposition: attachment; filename="…"`, when a raw body carries one. */
function dispositionFilename(header: string | undefined): string | null {
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header ?? '');
  if (!match?.[1]) return null;
  try {
    return clientFilename(decodeURIComponent(match[1]));
  } catch {
    return clientFilename(match[1]);
  }
}

/**
 * Streams a raw audio body to a temporary file. The request stream is read through an iterator
 * that does not destroy it when the transfer stops early, so a 413 still reaches the client.
 */
export async function receiveRaw(
  request: FastifyRequest,
  body: Readable,
  tempDir: string,
): Promise<ReceivedAudio> {
  const declared = Number(request.headers['content-length']);
  if (declared > MAX_AUDIO_BYTES) {
    throw errors.payloadTooLarge(`The audio file is larger than ${MAX_AUDIO_BYTES / 1024 / 1024} MB`);
  }
  const source = Readable.from(body.iterator({ destroyOnReturn: false }));
  try {
    const file = await receiveToTemp(tempDir, source, MAX_AUDIO_BYTES, 'The audio file');
    return { file, filename: dispositionFilename(request.headers['content-disposition']) };
  } catch (error) {
    throw uploadError(error);
  }
}
