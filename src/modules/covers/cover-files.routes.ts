import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { VARIANT_WIDTHS } from '../../core/covers.ts';
import { errors } from '../../errors.ts';
import { ErrorResponse } from '../../http/schemas.ts';
import { BinaryBody } from '../../http/uploads.ts';
import { mediaObjects } from '../media/index.ts';
import { findCoverFile } from './covers.files.ts';

const CoverFileParams = Type.Object({
  file: Type.String({
    description: 'The name in `cover_url`: the SHA-256 of the image and its extension',
    examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.jpg'],
  }),
});

const CoverFileQuery = Type.Object({
  w: Type.Optional(
    Type.Unsafe<number>({
      type: 'integer',
      enum: [...VARIANT_WIDTHS],
      description: 'Width in pixels of a resized copy; a cover is never enlarged',
    }),
  ),
});

/**
 * The address names the bytes (the content hash, and the width of a resized copy), so no cache need
 * ask again: a new cover gets a new address. Only a 200 says so; errors keep `no-store`.
 */
const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/** Stored media served by address, outside /api/v1: `cover_url` works without a key, like any image. */
export function coverFilesRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/media/covers/:file',
      {
        schema: {
          tags: ['releases'],
          operationId: 'getCoverImage',
          summary: 'A cover image, at its own size or resized',
          description:
            'The address a release gives as `cover_url`; no key needed. Resized copies are made once and kept. Named by content, so cached for a year: `Cache-Control: public, max-age=31536000, immutable`.',
          params: CoverFileParams,
          querystring: CoverFileQuery,
          response: {
            200: {
              description: 'The image, JPEG or PNG as uploaded',
              content: { 'image/jpeg': { schema: BinaryBody }, 'image/png': { schema: BinaryBody } },
            },
            404: ErrorResponse('No cover is stored under this name: `not_found`'),
          },
        },
      },
      async (request, reply) => {
        const { w } = request.query;
        const objects = mediaObjects(ctx.config);
        const cover = await findCoverFile(objects, request.params.file, w ?? null);
        // Streamed, never held whole; the tag comes from the content hash, so the ETag plugin can
        // answer If-None-Match with 304 without reading the file.
        const file = await objects.open(cover.key);
        if (!file) throw errors.notFound('Cover');
        return reply
          .type(cover.contentType)
          .header('etag', cover.etag)
          .header('cache-control', CACHE_FOREVER)
          .header('content-length', file.bytes)
          .send(file.stream);
      },
    );
  };
}
