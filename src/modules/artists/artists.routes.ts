import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams } from '../../http/schemas.ts';
import { ReleaseListBody } from '../releases/index.ts';
import {
  Artist,
  ArtistCard,
  ArtistListBody,
  ArtistQuery,
  CreateArtistBody,
  PatchArtistBody,
} from './artists.schemas.ts';
import { artistCard, artistPage, artistReleases, createArtist, patchArtist } from './artists.service.ts';

export function artistsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/artists',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['artists'],
          operationId: 'listArtists',
          summary: 'Artists of the label, optionally by part of the name',
          querystring: Type.Object({ ...PageQuery.properties, ...ArtistQuery.properties }),
          response: { 200: ArtistListBody },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const result = await artistPage(ctx, authOf(request).workspace, request.query.q, page);
        return {
          artists: result.artists,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, result.total),
        };
      },
    );

    app.get(
      '/artists/:id',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['artists'],
          operationId: 'getArtist',
          summary: 'One artist with its releases',
          params: IdParams,
          response: { 200: Type.Object({ artist: ArtistCard }) },
        },
      },
      async (request) => ({ artist: await artistCard(ctx, authOf(request).workspace, request.params.id) }),
    );

    app.get(
      '/artists/:id/releases',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['artists'],
          operationId: 'listArtistReleases',
          summary: "An artist's releases, newest first, paged",
          params: IdParams,
          querystring: PageQuery,
          response: { 200: ReleaseListBody },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const result = await artistReleases(ctx, authOf(request).workspace, request.params.id, page);
        return {
          releases: result.releases,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, result.total),
        };
      },
    );

    app.post(
      '/artists',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['artists'],
          operationId: 'createArtist',
          summary: 'Add an artist (409 with artist_id when the name exists in any case)',
          body: CreateArtistBody,
          response: {
            201: Type.Object({ artist: Artist }),
            409: ErrorResponse('The name exists in the label in some case: `conflict` with `artist_id`'),
          },
        },
      },
      async (request, reply) => {
        const artist = await createArtist(ctx, authOf(request).workspace, request.body);
        reply.code(201).header('location', `${ctx.config.baseUrl}/api/v1/artists/${artist.id}`);
        return { artist };
      },
    );

    app.patch(
      '/artists/:id',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['artists'],
          operationId: 'updateArtist',
          summary: 'Change any of name, store_a_url, store_b_url (null clears an address)',
          params: IdParams,
          body: PatchArtistBody,
          response: {
            200: Type.Object({ artist: Artist }),
            409: ErrorResponse('Another artist has this name: `conflict` with `artist_id`'),
          },
        },
      },
      async (request) => ({
        artist: await patchArtist(ctx, authOf(request).workspace, request.params.id, request.body),
      }),
    );
  };
}
