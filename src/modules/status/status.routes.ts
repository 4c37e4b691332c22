import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';
import { statusReport } from './status.service.ts';

const STATUS_PER_ADDRESS_PER_MINUTE = 30;

const StatusBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String({ examples: ['1.1.0'] }),
  time: DateTime,
  uptime_seconds: Type.Integer({ minimum: 0 }),
  checks: Type.Object({
    api: Type.Object({ ok: Type.Boolean() }),
    database: Type.Object({ ok: Type.Boolean(), latency_ms: Nullable(Type.Number()) }),
    distributor: Type.Object({ ok: Type.Boolean(), last_event_at: Nullable(DateTime) }),
    webhooks: Type.Object({
      ok: Type.Boolean(),
      deliveries_24h: Type.Integer({ minimum: 0 }),
      failed_24h: Type.Integer({ minimum: 0 }),
    }),
  }),
});

export function statusRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const startedAt = ctx.clock.now();
  return async (app) => {
    app.get(
      '/status',
      {
        config: { perAddressPerMinute: STATUS_PER_ADDRESS_PER_MINUTE },
        schema: {
          tags: ['identity'],
          operationId: 'getStatus',
          summary: 'Service status',
          description: `No key needed; ${STATUS_PER_ADDRESS_PER_MINUTE} requests a minute per address. 503 while the database is unreachable.`,
          response: {
            200: StatusBody,
            503: { ...StatusBody, description: 'The database is unreachable' },
          },
        },
      },
      async (_request, reply) => {
        const report = await statusReport(ctx, startedAt);
        return reply.code(report.checks.database.ok ? 200 : 503).send(report);
      },
    );
  };
}
