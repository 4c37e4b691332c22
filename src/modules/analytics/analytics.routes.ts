import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { ReleaseAnalyticsBody } from './analytics.schemas.ts';
import { releaseAnalytics } from './analytics.service.ts';

export function analyticsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/analytics/releases/:id',
      {
        config: { access: 'stats:read' },
        schema: {
          tags: ['analytics'],
          operationId: 'getReleaseAnalytics',
          summary: 'One release at a glance: status, platform stages, store links and smart links',
          description:
            '`platforms` counts the platforms that have reported a stage, by stage, and lists them. ' +
            '`smart_links` sums the views and clicks of the smart links made for the release and lists them; ' +
            'smart links are not available on this server yet, so it is `total: 0` with an empty `items` list.',
          params: IdParams,
          response: { 200: ReleaseAnalyticsBody },
        },
      },
      async (request) => releaseAnalytics(ctx, authOf(request).workspace, request.params.id),
    );
  };
}
