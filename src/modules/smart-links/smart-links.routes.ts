import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams, OkBody } from '../../http/schemas.ts';
import { linkStats } from './link-stats.service.ts';
import {
  CreateSmartLinkBody,
  LinkStats,
  LookupBody,
  LookupResult,
  PatchSmartLinkBody,
  SmartLinkBody,
  SmartLinkListBody,
  SmartLinkQuery,
} from './smart-links.schemas.ts';
import {
  createSmartLink,
  disableSmartLink,
  lookupRelease,
  patchSmartLink,
  readSmartLink,
  smartLinkPage,
} from './smart-links.service.ts';

const ListQuery = Type.Object({ ...PageQuery.properties, ...SmartLinkQuery.properties });

export function smartLinksRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/smart-links',
      {
        config: { access: 'links:read' },
        schema: {
          tags: ['smart-links'],
          operationId: 'listSmartLinks',
          summary: 'Smart links of the label, newest first; filter by text, state or release',
          querystring: ListQuery,
          response: { 200: SmartLinkListBody },
        },
      },
      async (request, reply) => {
        const { query } = request;
        const page = pageOf(query);
        const result = await smartLinkPage(
          ctx,
          authOf(request).workspace,
          { q: query.q, enabled: query.enabled, releaseId: query.release_id },
          page,
        );
        return {
          smart_links: result.smart_links,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, result.total),
        };
      },
    );

    app.get(
      '/smart-links/:id',
      {
        config: { access: 'links:read' },
        schema: {
          tags: ['smart-links'],
          operationId: 'getSmartLink',
          summary: 'One smart link with its targets and counters',
          params: IdParams,
          response: { 200: SmartLinkBody },
        },
      },
      async (request) => {
        return { smart_link: await readSmartLink(ctx, authOf(request).workspace, request.params.id) };
      },
    );

    app.post(
      '/smart-links/lookup',
      {
        config: { access: 'links:read' },
        schema: {
          tags: ['smart-links'],
          operationId: 'lookupSmartLinkTargets',
          summary: 'A release of the label by UPC with its store addresses, ready to become targets',
          body: LookupBody,
          response: {
            200: LookupResult,
            404: ErrorResponse('No release of the label has this UPC: `not_found`'),
          },
        },
      },
      async (request) => lookupRelease(ctx, authOf(request).workspace, request.body.upc),
    );

    app.post(
      '/smart-links',
      {
        config: { access: 'links:write' },
        schema: {
          tags: ['smart-links'],
          operationId: 'createSmartLink',
          summary: 'Create a smart link with a random short code',
          description:
            'Start plans hold at most 50 enabled links (403 `plan_limit`). `release_id` ties the link to a release of the label: its cover shows on the page.',
          body: CreateSmartLinkBody,
          response: { 201: SmartLinkBody },
        },
      },
      async (request, reply) => {
        const link = await createSmartLink(ctx, authOf(request), request.body);
        reply.code(201).header('location', `${ctx.config.baseUrl}/api/v1/smart-links/${link.id}`);
        return { smart_link: link };
      },
    );

    app.patch(
      '/smart-links/:id',
      {
        config: { access: 'links:write' },
        schema: {
          tags: ['smart-links'],
          operationId: 'updateSmartLink',
          summary: 'Change a link; `targets` replaces them all (kept platforms keep their clicks)',
          description:
            '`slug`, `theme`, `accent`, `cta_text` and `hide_branding` need the Label plan or above (403 `plan_required`). `enabled: true` re-enables a disabled link.',
          params: IdParams,
          body: PatchSmartLinkBody,
          response: {
            200: SmartLinkBody,
            409: ErrorResponse('Another link has this slug: `conflict` with `field: "slug"`'),
          },
        },
      },
      async (request) => ({
        smart_link: await patchSmartLink(ctx, authOf(request), request.params.id, request.body),
      }),
    );

    app.delete(
      '/smart-links/:id',
      {
        config: { access: 'links:write' },
        schema: {
          tags: ['smart-links'],
          operationId: 'disableSmartLink',
          summary: 'Disable a link: its page answers 404; the link and its statistics stay',
          params: IdParams,
          response: { 200: OkBody },
        },
      },
      async (request) => {
        await disableSmartLink(ctx, authOf(request).workspace, request.params.id);
        return { ok: true as const };
      },
    );

    app.get(
      '/smart-links/:id/stats',
      {
        config: { access: 'stats:read' },
        schema: {
          tags: ['smart-links'],
          operationId: 'getSmartLinkStats',
          summary: 'Views, clicks and pre-saves of a link, by day, platform, source, device and language',
          params: IdParams,
          response: { 200: LinkStats },
        },
      },
      async (request) => linkStats(ctx, authOf(request).workspace, request.params.id),
    );
  };
}
