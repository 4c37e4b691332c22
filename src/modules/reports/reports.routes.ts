import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { CatalogHealthBody } from './reports.schemas.ts';
import { catalogHealth } from './reports.service.ts';

export function reportsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/reports/catalog-health',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['reports'],
          operationId: 'getCatalogHealth',
          summary: 'What in the catalog needs attention: counts, a score and the affected objects',
          description:
            'Each count is exact; each issue list holds the first 100 objects by id. A release has remarks when it is in any list, or one of its tracks is. Stale drafts were created more than a calendar month ago.',
          response: { 200: CatalogHealthBody },
        },
      },
      async (request) => catalogHealth(ctx, authOf(request).workspace),
    );
  };
}
