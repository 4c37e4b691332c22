import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse } from '../../http/schemas.ts';
import { getCredits, putCredits } from './credits.service.ts';
import {
  Contributor,
  ContributorsInput,
  FeaturedArtist,
  FeaturedInput,
  TrackParams,
  Writer,
  WritersInput,
} from './tracks.schemas.ts';

const CreditsBody = Type.Object({
  ok: Type.Literal(true),
  contributors: Type.Array(Contributor),
  writers: Type.Array(Writer),
  featured: Type.Array(FeaturedArtist),
});

const PutCreditsBody = Type.Object(
  {
    contributors: Type.Optional(ContributorsInput),
    writers: Type.Optional(WritersInput),
    featured: Type.Optional(FeaturedInput),
  },
  { additionalProperties: false },
);

export function creditsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/releases/:id/tracks/:trackId/credits',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['tracks'],
          operationId: 'getTrackCredits',
          summary: 'Contributors, writers and featured artists of a track',
          params: TrackParams,
          response: { 200: CreditsBody },
        },
      },
      async (request) => {
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        return getCredits(ctx, authOf(request).workspace, ids);
      },
    );

    app.put(
      '/releases/:id/tracks/:trackId/credits',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['tracks'],
          operationId: 'putTrackCredits',
          summary: 'Replace the credit lists that are sent',
          description:
            'Each of `contributors`, `writers`, `featured` that is sent replaces the stored list; the others stay (at least one must be sent). Roles may be given by their local-language names and are stored by their canonical name; an unknown role, or a role of the other kind, gives 400 with that field. Platforms return a release whose track has no contributor. Allowed while the release is a draft or waits for moderation.',
          params: TrackParams,
          body: PutCreditsBody,
          response: {
            200: CreditsBody,
            409: ErrorResponse('The release is neither a draft nor waiting for moderation: `conflict`'),
          },
        },
      },
      async (request) => {
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        return putCredits(ctx, authOf(request).workspace, ids, request.body);
      },
    );
  };
}
