import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { errors } from '../../errors.ts';
import { bindIdempotencyKey } from '../../http/idempotency.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, Id } from '../../http/schemas.ts';
import { rethrowUnlessBodyFailure } from '../../http/uploads.ts';
import { bodyCheck } from '../../http/validation.ts';
import { discardFile, mediaObjects } from '../media/index.ts';
import { FORM_FIELDS } from './tracks.fields.ts';
import { presentTrack } from './tracks.presenter.ts';
import { AI_ELEMENTS, TrackBody, TrackParams } from './tracks.schemas.ts';
import {
  assertCanAddTrack,
  assertCanReplaceAudio,
  createTrack,
  MAX_SINGLE_TRACKS,
  replaceAudio,
} from './tracks.service.ts';
import {
  AUDIO_FIELD,
  MAX_AUDIO_BYTES,
  MULTIPART_LIMITS,
  type ReceivedAudio,
  receiveForm,
  receiveRaw,
} from './tracks.upload.ts';

/** Raw bodies PUT …/audio accepts: the spec's three and their common aliases. */
const AUDIO_TYPES = ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/flac', 'audio/x-flac'];
const MAX_AUDIO_MB = MAX_AUDIO_BYTES / 1024 / 1024;

const AUDIO_KEY_MISMATCH =
  'The Idempotency-Key was used with another file (its SHA-256), file name or text fields: `idempotency_mismatch`';

const AudioBytes = Type.String({
  format: 'binary',
  description: `WAV (PCM) or FLAC, at most ${MAX_AUDIO_MB} MB, judged by its content (not by name or declared type): 8,000-384,000 Hz, 1-8 channels, 8-32 bits, at least 0.5 s`,
});

const jsonText = (description: string) =>
  Type.Optional(Type.String({ description: `JSON text: ${description}` }));

/** Documents the form; its fields are read and checked by the handler as they stream in. */
const TrackForm = Type.Object({
  audio: AudioBytes,
  title: Type.String({ maxLength: 200, examples: ['Night Drive'] }),
  version: Type.Optional(Type.String({ examples: ['Extended Mix'] })),
  version_type: Type.Optional(Type.String({ maxLength: 100, examples: ['remix'] })),
  isrc: Type.Optional(
    Type.String({ description: 'CCXXXYYNNNNN; hyphens are accepted', examples: ['US-RC1-76-07839'] }),
  ),
  explicit: Type.Optional(Type.Boolean({ description: '`true`/`false` (or `1`/`0`)' })),
  instrumental: Type.Optional(Type.Boolean()),
  language: Type.Optional(Type.String({ description: 'ISO 639-1 code', examples: ['en'] })),
  lyrics: Type.Optional(Type.String({ description: 'Plain text; timed lyrics go to PUT …/lyrics' })),
  writers: jsonText('[{"name": "…", "roles": ["Composer", "Lyricist"]}]'),
  contributors: jsonText('[{"name": "…", "role": "Producer"}]'),
  featured: jsonText('[{"name": "…"}]'),
  preview_start_sec: Type.Optional(Type.Number({ minimum: 0, description: 'Less than the audio duration' })),
  ai_service: Type.Optional(Type.String({ description: 'Required together with ai_elements' })),
  ai_elements: Type.Optional(
    Type.String({
      description: `JSON array or comma-separated, of: ${AI_ELEMENTS.join(', ')}`,
      examples: ['vocals,lyrics'],
    }),
  ),
});

const CreateTrackUpload = {
  description:
    '`multipart/form-data`: the file field `audio` and text fields, in any order (the file is streamed to disk as it arrives).',
  content: { 'multipart/form-data': { schema: TrackForm } },
};

const ReplaceAudioUpload = {
  description: 'The audio itself, or `multipart/form-data` with the file field `audio`.',
  content: {
    ...Object.fromEntries(
      ['audio/wav', 'audio/x-wav', 'audio/flac'].map((type) => [type, { schema: AudioBytes }]),
    ),
    'multipart/form-data': { schema: Type.Object({ audio: AudioBytes }) },
  },
};

function assertMultipart(request: FastifyRequest): void {
  if (!request.isMultipart()) throw errors.unsupportedMediaType(request.headers['content-type'] ?? '(none)');
}

const NO_TEXT_FIELDS: ReadonlySet<string> = new Set();
const CREATE_FIELDS: ReadonlySet<string> = new Set(FORM_FIELDS);

async function receiveReplacement(request: FastifyRequest, tempDir: string): Promise<ReceivedAudio> {
  if (request.body instanceof Readable) return receiveRaw(request, request.body, tempDir);
  assertMultipart(request);
  const form = await receiveForm(request, tempDir, NO_TEXT_FIELDS);
  if (!form.audio) throw errors.invalid(AUDIO_FIELD, 'The audio file is required in the file field audio');
  return form.audio;
}

/**
 * Binds an Idempotency-Key to what was received: the file's SHA-256, its name and the text fields,
 * so a repeat with other content is 422. The received file goes when the request ends here.
 */
async function bindToReceived(
  request: FastifyRequest,
  audio: ReceivedAudio | null,
  fields: ReadonlyMap<string, string>,
): Promise<void> {
  const content = JSON.stringify({
    audio: audio && { sha256: audio.file.sha256, filename: audio.filename },
    fields: [...fields].sort(([a], [b]) => a.localeCompare(b)),
  });
  try {
    await bindIdempotencyKey(request, content);
  } catch (error) {
    if (audio) await discardFile(audio.file);
    throw error;
  }
}

/** The two routes that take audio: adding a track and replacing its audio. */
export function audioRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Both parsers live in this plugin only: elsewhere such a body stays a 415. A raw audio body
    // is handed over as the request stream, so it goes to disk without being held in memory.
    app.addContentTypeParser(AUDIO_TYPES, (_request, payload, done) => done(null, payload));
    await app.register(multipart, { limits: MULTIPART_LIMITS });
    const { tempDir } = mediaObjects(ctx.config);

    app.post(
      '/releases/:id/tracks',
      {
        config: { access: 'catalog:write', idempotentUpload: true },
        attachValidation: true,
        schema: {
          tags: ['tracks'],
          operationId: 'createTrack',
          summary: 'Add a track with its audio to a draft release',
          description: `The track gets the next number. A single holds at most ${MAX_SINGLE_TRACKS} tracks. Malformed JSON text or an unknown role in \`writers\`/\`contributors\` gives 400 with that field; audio that is not WAV (PCM) or FLAC gives 400 with \`field: audio\`.`,
          params: Type.Object({ id: Id }),
          body: CreateTrackUpload,
          response: {
            201: TrackBody,
            409: ErrorResponse(
              `The release is not a draft, or the single already has ${MAX_SINGLE_TRACKS} tracks: \`conflict\``,
            ),
            413: ErrorResponse(
              `The audio is over ${MAX_AUDIO_MB} MB or a text field over 100 KB: \`payload_too_large\``,
            ),
            415: ErrorResponse('The body is not multipart/form-data: `unsupported_media_type`'),
            422: ErrorResponse(AUDIO_KEY_MISMATCH),
          },
        },
      },
      async (request, reply) => {
        rethrowUnlessBodyFailure(request);
        assertMultipart(request);
        const { workspace } = authOf(request);
        const releaseId = request.params.id;
        await assertCanAddTrack(ctx, workspace, releaseId);
        const form = await receiveForm(request, tempDir, CREATE_FIELDS);
        await bindToReceived(request, form.audio, form.fields);
        const track = await createTrack(ctx, workspace, releaseId, form, bodyCheck(request));
        reply
          .code(201)
          .header('location', `${ctx.config.baseUrl}/api/v1/releases/${releaseId}/tracks/${track.id}`);
        return { track: presentTrack(track, workspace) };
      },
    );

    app.put(
      '/releases/:id/tracks/:trackId/audio',
      {
        config: { access: 'catalog:write', idempotentUpload: true },
        attachValidation: true,
        schema: {
          tags: ['tracks'],
          operationId: 'replaceTrackAudio',
          summary: 'Replace the audio of a track',
          description:
            'Allowed while the release is a draft or waits for moderation. A raw body may name the file with `Content-Disposition: attachment; filename="…"`. A `preview_start_sec` beyond the new duration is cleared.',
          params: TrackParams,
          body: ReplaceAudioUpload,
          response: {
            200: TrackBody,
            409: ErrorResponse('The release is neither a draft nor waiting for moderation: `conflict`'),
            413: ErrorResponse(`The audio is over ${MAX_AUDIO_MB} MB: \`payload_too_large\``),
            415: ErrorResponse('The body is neither WAV, FLAC nor multipart: `unsupported_media_type`'),
            422: ErrorResponse(AUDIO_KEY_MISMATCH),
          },
        },
      },
      async (request) => {
        rethrowUnlessBodyFailure(request);
        const { workspace } = authOf(request);
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        await assertCanReplaceAudio(ctx, workspace, ids.releaseId, ids.trackId);
        const audio = await receiveReplacement(request, tempDir);
        await bindToReceived(request, audio, new Map());
        return { track: presentTrack(await replaceAudio(ctx, workspace, ids, audio), workspace) };
      },
    );
  };
}
