import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, Nullable } from '../../http/schemas.ts';
import { getLyrics, putLyrics } from './lyrics.service.ts';
import { LyricLineSchema, TrackParams } from './tracks.schemas.ts';

/** Timed lines beyond this are refused (a long song has a few hundred). */
const MAX_LINES = 5000;

const LyricsBody = Type.Object({
  ok: Type.Literal(true),
  text: Nullable(Type.String({ description: 'Plain text; for timed lyrics, the lines joined by newlines' })),
  lines: Type.Array(LyricLineSchema, {
    description: 'Timed lines in time order; empty for plain-text lyrics',
  }),
  lrc: Nullable(
    Type.String({
      description: 'The lines as LRC, `[mm:ss.xx] text`; null for plain-text lyrics',
      examples: ['[01:23.50] Hello'],
    }),
  ),
});

const PutLyricsBody = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'Plain text (untimed); empty clears the lyrics' })),
    lines: Type.Optional(
      Type.Array(LyricLineSchema, {
        maxItems: MAX_LINES,
        description: 'Timed lines; times are kept to centiseconds',
      }),
    ),
    lrc: Type.Optional(
      Type.String({ description: 'LRC text: `[mm:ss.xx] text` per line; ID tags are skipped' }),
    ),
  },
  { additionalProperties: false },
);

export function lyricsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/releases/:id/tracks/:trackId/lyrics',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['tracks'],
          operationId: 'getTrackLyrics',
          summary: 'Lyrics of a track as plain text, timed lines and LRC',
          params: TrackParams,
          response: { 200: LyricsBody },
        },
      },
      async (request) => {
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        return getLyrics(ctx, authOf(request).workspace, ids);
      },
    );

    app.put(
      '/releases/:id/tracks/:trackId/lyrics',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['tracks'],
          operationId: 'putTrackLyrics',
          summary: 'Set the lyrics from exactly one of text, lines or lrc',
          description:
            'Allowed while the release is a draft or waits for moderation. More or fewer than one form gives 400 with `field: text`; malformed LRC gives 400 with `field: lrc`.',
          params: TrackParams,
          body: PutLyricsBody,
          response: {
            200: LyricsBody,
            409: ErrorResponse('The release is neither a draft nor waiting for moderation: `conflict`'),
          },
        },
      },
      async (request) => {
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        return putLyrics(ctx, authOf(request).workspace, ids, request.body);
      },
    );
  };
}
