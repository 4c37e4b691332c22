import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, Id, Nullable, OkBody, StringEnum } from '../../http/schemas.ts';
import { audioRoutes } from './audio.routes.ts';
import { creditsRoutes } from './credits.routes.ts';
import { lyricsRoutes } from './lyrics.routes.ts';
import { presentTrack } from './tracks.presenter.ts';
import {
  AI_ELEMENTS,
  ContributorsInput,
  FeaturedInput,
  TrackBody,
  TrackParams,
  WritersInput,
} from './tracks.schemas.ts';
import { deleteTrack, getTrack, patchTrack } from './tracks.service.ts';

const TrackPatchBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    version: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    version_type: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    isrc: Type.Optional(Nullable(Type.String({ maxLength: 20, examples: ['USRC17607839'] }))),
    explicit: Type.Optional(Type.Boolean()),
    instrumental: Type.Optional(Type.Boolean()),
    language: Type.Optional(Nullable(Type.String({ maxLength: 10, examples: ['en'] }))),
    lyrics: Type.Optional(Nullable(Type.String({ description: 'Plain text (clears timed lyrics)' }))),
    writers: Type.Optional(WritersInput),
    contributors: Type.Optional(ContributorsInput),
    featured: Type.Optional(FeaturedInput),
    preview_start_sec: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    ai_service: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    ai_elements: Type.Optional(
      Nullable(Type.Array(StringEnum(AI_ELEMENTS), { maxItems: AI_ELEMENTS.length })),
    ),
    number: Type.Optional(Id),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** A release's tracks one by one (the /tracks list is in the search module). */
export function tracksRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(audioRoutes(ctx));
    await app.register(lyricsRoutes(ctx));
    await app.register(creditsRoutes(ctx));

    app.get(
      '/releases/:id/tracks/:trackId',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['tracks'],
          operationId: 'getTrack',
          summary: 'One track of a release',
          params: TrackParams,
          response: { 200: TrackBody },
        },
      },
      async (request) => {
        const { workspace } = authOf(request);
        const track = await getTrack(ctx, workspace, request.params.id, request.params.trackId);
        return { track: presentTrack(track, workspace) };
      },
    );

    app.patch(
      '/releases/:id/tracks/:trackId',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['tracks'],
          operationId: 'updateTrack',
          summary: 'Edit track metadata; `number` moves the track and renumbers the others',
          description:
            'Allowed while the release is a draft or waits for moderation. Null clears a nullable field; `lyrics` sets plain-text lyrics (timed ones: PUT …/lyrics).',
          params: TrackParams,
          body: TrackPatchBody,
          response: {
            200: TrackBody,
            409: ErrorResponse('The release is neither a draft nor waiting for moderation: `conflict`'),
          },
        },
      },
      async (request) => {
        const { workspace } = authOf(request);
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        const track = await patchTrack(ctx, workspace, ids, request.body);
        return { track: presentTrack(track, workspace) };
      },
    );

    app.delete(
      '/releases/:id/tracks/:trackId',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['tracks'],
          operationId: 'deleteTrack',
          summary: 'Delete a track of a draft; the tracks after it move up',
          params: TrackParams,
          response: { 200: OkBody, 409: ErrorResponse('The release is not a draft: `conflict`') },
        },
      },
      async (request) => {
        const ids = { releaseId: request.params.id, trackId: request.params.trackId };
        await deleteTrack(ctx, authOf(request).workspace, ids);
        return { ok: true as const };
      },
    );
  };
}
