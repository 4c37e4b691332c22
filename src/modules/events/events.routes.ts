import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { EVENT_NAMES } from '../../db/values.ts';
import { authOf } from '../../http/request-context.ts';
import { DateTime, MAX_ID, StringEnum } from '../../http/schemas.ts';
import { requireFeature } from '../plans/index.ts';

import { eventFeed, parseEventTypes } from './events.service.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;

const Event = Type.Object({
  id: Type.Integer({ description: 'Increasing; pass the last one read as `after`' }),
  event: StringEnum(EVENT_NAMES),
  created_at: DateTime,
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What the event is about; `sandbox: true` on events of the sandbox',
  }),
});

const FeedQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_ID,
      default: 0,
      description: 'Id of the last event read',
    }),
  ),
  types: Type.Optional(
    Type.String({
      description: 'Comma-separated event names',
      examples: ['release.live,release.dsp_status'],
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: DEFAULT_LIMIT,
      description: `Events per page; at most ${MAX_LIMIT}`,
    }),
  ),
});

const FeedBody = Type.Object({
  events: Type.Array(Event),
  next_after: Type.Integer({ description: 'Pass as `after` next time (unchanged when nothing new came)' }),
  has_more: Type.Boolean(),
});

export function eventsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/events',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['events'],
          operationId: 'listEvents',
          summary: "The workspace's events after an id, oldest first (Label plan or above)",
          querystring: FeedQuery,
          response: { 200: FeedBody },
        },
      },
      async (request) => {
        const auth = authOf(request);
        requireFeature(auth.label, 'events_feed');
        return eventFeed(ctx.db, auth.workspace, {
          after: request.query.after ?? 0,
          types: parseEventTypes(request.query.types),
          limit: Math.min(request.query.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
        });
      },
    );
  };
}
