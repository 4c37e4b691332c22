import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { coverFileUrl } from '../../core/covers.ts';
import { bindIdempotencyKey } from '../../http/idempotency.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams } from '../../http/schemas.ts';
import { BinaryBody, rethrowUnlessBodyFailure } from '../../http/uploads.ts';
import type { ReceivedFile } from '../media/index.ts';
import { MIN_COVER_SIDE } from './covers.image.ts';
import { MAX_COVER_BYTES, replaceCover } from './covers.service.ts';
import { COVER_FIELD, IMAGE_TYPES, MULTIPART_LIMITS, uploadOf } from './covers.upload.ts';

/** Documents the accepted bodies; the image itself is judged by decoding it, not by a schema. */
const CoverUpload = {
  content: {
    'image/jpeg': { schema: BinaryBody },
    'image/png': { schema: BinaryBody },
    'multipart/form-data': { schema: Type.Object({ [COVER_FIELD]: BinaryBody }) },
  },
};

const CoverBody = Type.Object({
  ok: Type.Literal(true),
  cover_url: Type.String({
    format: 'uri',
    description:
      'Our copy, named by content; append ?w=300 (or 100 to 3000, see GET /media/covers) for a resized one',
    examples: [
      'https://api.example.com/media/covers/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.jpg',
    ],
  }),
  width: Type.Integer({ examples: [3000] }),
  height: Type.Integer({ examples: [3000] }),
  bytes: Type.Integer({ minimum: 1, examples: [2483118] }),
});

export function coversRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Both parsers live in this plugin only: elsewhere an image body stays a 415. The raw image
    // is handed over as the request stream, so it goes to disk without being held in memory.
    app.addContentTypeParser(IMAGE_TYPES, (_request, payload, done) => done(null, payload));
    await app.register(multipart, { limits: MULTIPART_LIMITS });

    app.put(
      '/releases/:id/cover',
      {
        config: { access: 'catalog:write', idempotentUpload: true },
        attachValidation: true,
        schema: {
          tags: ['releases'],
          operationId: 'putReleaseCover',
          summary: 'Upload or replace the cover of a draft release',
          description: `The body is the image itself (\`image/jpeg\` or \`image/png\`) or \`multipart/form-data\` with the file field \`${COVER_FIELD}\`. A cover that is not square, is under ${MIN_COVER_SIDE} px on a side or is not a readable JPEG or PNG gives 400 \`invalid\` with \`field: cover\` and, when they could be read, \`width\` and \`height\`. The format is read from the image, never from Content-Type; at most ${MAX_COVER_BYTES / 1024 / 1024} MB (3000x3000 preferred). Allowed while the release is a draft. An \`Idempotency-Key\` is bound to the image's SHA-256: the same key with another image is 422 \`idempotency_mismatch\`, with the same image the first answer is sent again with \`Idempotent-Replayed: true\`.`,
          params: IdParams,
          body: CoverUpload,
          response: {
            200: CoverBody,
            409: ErrorResponse('The release is not a draft: `conflict`'),
            413: ErrorResponse(
              `The image is over ${MAX_COVER_BYTES / 1024 / 1024} MB: \`payload_too_large\``,
            ),
            415: ErrorResponse('The body is neither an image nor multipart: `unsupported_media_type`'),
            422: ErrorResponse('The Idempotency-Key was used with another image: `idempotency_mismatch`'),
          },
        },
      },
      async (request) => {
        rethrowUnlessBodyFailure(request);
        const upload = {
          open: uploadOf(request),
          received: (file: ReceivedFile) => bindIdempotencyKey(request, file.sha256),
        };
        const cover = await replaceCover(ctx, authOf(request).workspace, request.params.id, upload);
        return {
          ok: true as const,
          cover_url: coverFileUrl(ctx.config.baseUrl, cover.sha256, cover.format),
          width: cover.width,
          height: cover.height,
          bytes: cover.bytes,
        };
      },
    );
  };
}
