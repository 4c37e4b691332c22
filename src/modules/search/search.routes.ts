import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse } from '../../http/schemas.ts';
import { requireFeature } from '../plans/index.ts';
import { catalogCsv } from './export.service.ts';
import { CsvText, SearchBody, SearchQuery, TrackListBody, TrackListQuery } from './search.schemas.ts';
import { listTracks, searchCatalog } from './search.service.ts';

/** The day in the file name is the server's (UTC) day of the export. */
function exportFileName(ctx: AppContext): string {
  return `catalog-${ctx.clock.now().toISOString().slice(0, 10)}.csv`;
}

export function searchRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/tracks',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['tracks'],
          operationId: 'listTracks',
          summary: 'Tracks of the catalog, by ISRC, release or part of the title',
          description:
            'Filters combine. Newest first; with `release_id`, in track order. Each track carries its release: `{id, title, status, upc, artist_name}`.',
          querystring: TrackListQuery,
          response: {
            200: TrackListBody,
            404: ErrorResponse("`release_id` names no release of the caller's label: `not_found`"),
          },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const result = await listTracks(ctx, authOf(request).workspace, request.query, page);
        return {
          tracks: result.tracks,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, result.total),
        };
      },
    );

    app.get(
      '/search',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['search'],
          operationId: 'searchCatalog',
          summary: 'Releases, artists and tracks matching a title, name, UPC or ISRC',
          description: 'Up to 10 of each kind.',
          querystring: SearchQuery,
          response: { 200: SearchBody },
        },
      },
      async (request) => searchCatalog(ctx, authOf(request).workspace, request.query.q),
    );

    app.get(
      '/catalog/export.csv',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['search'],
          operationId: 'exportCatalogCsv',
          summary: 'The whole catalog as CSV, one row per track (Pro plan or above)',
          description:
            'Streamed as it is read, ordered by release id and track number. Without the `csv_export` feature of the plan: 403 `plan_required`. No ETag: the body is not known before it is sent.',
          response: {
            200: {
              description: 'The catalog, one record per track',
              content: { 'text/csv': { schema: CsvText } },
            },
          },
        },
      },
      async (request, reply) => {
        const { label, workspace } = authOf(request);
        requireFeature(label, 'csv_export');
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${exportFileName(ctx)}"`)
          .send(catalogCsv(ctx, workspace));
      },
    );
  };
}
