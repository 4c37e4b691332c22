import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { flushPendingCounts } from '../smart-links/index.ts';
import { PeriodQuery, ReleaseAnalyticsBody, SummaryBody, TrafficBody } from './analytics.schemas.ts';
import { labelSummary, labelTraffic, releaseAnalytics } from './analytics.service.ts';

export function analyticsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Every answer here sums smart-link counters: what this process counted is written first.
    app.addHook('preHandler', (request) => flushPendingCounts(ctx, authOf(request).workspace.id));

    app.get(
      '/analytics/summary',
      {
        config: { access: 'stats:read' },
        schema: {
          tags: ['analytics'],
          operationId: 'getAnalyticsSummary',
          summary:
            "The label's releases by status and its smart links' views, clicks and pre-saves over a period",
          querystring: PeriodQuery,
          response: { 200: SummaryBody },
        },
      },
      async (request) => labelSummary(ctx, authOf(request).workspace, request.query.days ?? 30),
    );

    app.get(
      '/analytics/traffic',
      {
        config: { access: 'stats:read' },
        schema: {
          tags: ['analytics'],
          operationId: 'getAnalyticsTraffic',
          summary:
            "Where the label's smart-link views came from over a period: sources, devices, languages, hours",
          querystring: PeriodQuery,
          response: { 200: TrafficBody },
        },
      },
      async (request) => labelTraffic(ctx, authOf(request).workspace, request.query.days ?? 30),
    );

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
            '`smart_links` sums the views and clicks of the smart links made for the release and lists them.',
          params: IdParams,
          response: { 200: ReleaseAnalyticsBody },
        },
      },
      async (request) => releaseAnalytics(ctx, authOf(request).workspace, request.params.id),
    );
  };
}
