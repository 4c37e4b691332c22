import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { errors } from '../../errors.ts';
import { PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams, OkBody, validated } from '../../http/schemas.ts';
import {
  CreatedReleaseCard,
  CreateReleaseBody,
  DspStatus,
  HistoryEntry,
  PatchReleaseBody,
  ReleaseCard,
  ReleaseListBody,
  ReleaseQuery,
} from './releases.schemas.ts';
import {
  createRelease,
  patchRelease,
  releaseCard,
  releaseDspStatuses,
  releaseHistory,
  releasePage,
  removeRelease,
} from './releases.service.ts';
import type { ReleaseFilter } from './releases.store.ts';

const MAX_IDS = 100;

const ListQuery = Type.Object({ ...PageQuery.properties, ...ReleaseQuery.properties });

function parseIds(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length > MAX_IDS) throw errors.invalid('ids', `ids takes at most ${MAX_IDS} ids`);
  return parts.map((part) => {
    if (!/^\d{1,10}$/.test(part) || Number(part) < 1 || Number(part) > 2_147_483_647) {
      throw errors.invalid('ids', 'ids must be comma-separated positive integers');
    }
    return Number(part);
  });
}

/** Stored times are ISO text in UTC with milliseconds; a bound is put in the same form to compare as text. */
function instantOf(field: string, text: string): string {
  const at = new Date(text);
  // The date-time format admits a leap second (23:59:60), which Date cannot represent.
  if (Number.isNaN(at.getTime())) throw errors.invalid(field, `${field} must be a date-time`);
  return at.toISOString();
}

function filterOf(query: {
  status?: ReleaseFilter['status'];
  artist_id?: number;
  upc?: string;
  ids?: string;
  updated_since?: string;
}): ReleaseFilter {
  return {
    status: query.status,
    artistId: query.artist_id,
    upc: query.upc?.trim(),
    ids: query.ids === undefined ? undefined : parseIds(query.ids),
    updatedSince:
      query.updated_since === undefined ? undefined : instantOf('updated_since', query.updated_since),
  };
}

export function releasesRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/releases',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['releases'],
          operationId: 'listReleases',
          summary: 'Releases of the label, filtered and sorted',
          querystring: ListQuery,
          response: { 200: ReleaseListBody },
        },
      },
      async (request, reply) => {
        const query = validated(ListQuery, request.query);
        const page = pageOf(query);
        const { workspace } = authOf(request);
        const result = await releasePage(ctx, workspace, filterOf(query), query.sort ?? '-created_at', page);
        return {
          releases: result.releases,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, result.total),
        };
      },
    );

    app.get(
      '/releases/:id',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['releases'],
          operationId: 'getRelease',
          summary: 'The full release card: tracks, platform statuses, store links',
          params: IdParams,
          response: { 200: Type.Object({ release: ReleaseCard }) },
        },
      },
      async (request) => ({ release: await releaseCard(ctx, authOf(request).workspace, request.params.id) }),
    );

    app.post(
      '/releases',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['releases'],
          operationId: 'createRelease',
          summary: 'Create a draft release (counts toward the plan limit)',
          body: CreateReleaseBody,
          response: {
            201: Type.Object({ release: CreatedReleaseCard }),
            409: ErrorResponse(
              'Another release of the label has this UPC: `conflict` with `field` and `release_id`',
            ),
          },
        },
      },
      async (request, reply) => {
        const release = await createRelease(ctx, authOf(request), validated(CreateReleaseBody, request.body));
        reply.code(201).header('location', `${ctx.config.baseUrl}/api/v1/releases/${release.id}`);
        return { release };
      },
    );

    app.patch(
      '/releases/:id',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['releases'],
          operationId: 'updateRelease',
          summary: 'Edit a draft (409 once it is in moderation or on platforms)',
          params: IdParams,
          body: PatchReleaseBody,
          response: {
            200: Type.Object({ release: ReleaseCard }),
            409: ErrorResponse('The release is no longer a draft, or the UPC is taken: `conflict`'),
          },
        },
      },
      async (request) => ({
        release: await patchRelease(ctx, authOf(request).workspace, request.params.id, request.body),
      }),
    );

    app.delete(
      '/releases/:id',
      {
        config: { access: 'catalog:write' },
        schema: {
          tags: ['releases'],
          operationId: 'deleteRelease',
          summary: 'Delete a draft or a sandbox release (409 otherwise)',
          params: IdParams,
          response: {
            200: OkBody,
            409: ErrorResponse('Only drafts and sandbox releases can be deleted: `conflict`'),
          },
        },
      },
      async (request) => {
        await removeRelease(ctx, authOf(request).workspace, request.params.id);
        return { ok: true as const };
      },
    );

    app.get(
      '/releases/:id/dsp-status',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['releases'],
          operationId: 'getReleaseDspStatus',
          summary: "The release's stage on each platform (empty until the distributor reports)",
          params: IdParams,
          response: { 200: Type.Object({ release_id: Type.Integer(), dsp_statuses: Type.Array(DspStatus) }) },
        },
      },
      async (request) => ({
        release_id: request.params.id,
        dsp_statuses: await releaseDspStatuses(ctx, authOf(request).workspace, request.params.id),
      }),
    );

    app.get(
      '/releases/:id/history',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['releases'],
          operationId: 'getReleaseHistory',
          summary: 'Each change of status or review, oldest first',
          params: IdParams,
          response: { 200: Type.Object({ history: Type.Array(HistoryEntry) }) },
        },
      },
      async (request) => ({
        history: await releaseHistory(ctx, authOf(request).workspace, request.params.id),
      }),
    );
  };
}
