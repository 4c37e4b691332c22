import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { ROLE_NAMES } from '../../db/values.ts';
import { PageFields, PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { DateTime, Nullable, StringEnum } from '../../http/schemas.ts';

import { listTeam } from './team.service.ts';

const Member = Type.Object({
  user_id: Type.Integer(),
  login: Type.String(),
  name: Type.String(),
  role: StringEnum(ROLE_NAMES),
  role_title: Type.String({ examples: ['Accountant'] }),
  permissions: Type.Array(Type.String({ examples: ['finance.view'] })),
  joined_at: DateTime,
  last_seen_at: Nullable(DateTime),
});

const TeamBody = Type.Object({
  members: Type.Array(Member),
  seats: Type.Object({
    used: Type.Integer({ minimum: 0 }),
    max: Nullable(Type.Integer({ minimum: 0 })),
  }),
  ...PageFields,
});

export function teamRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/team',
      {
        config: { access: 'team:read' },
        schema: {
          tags: ['team'],
          operationId: 'listTeam',
          summary: 'Staff with roles and permissions (never e-mail) and seats',
          querystring: PageQuery,
          response: { 200: TeamBody },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const team = await listTeam(ctx, authOf(request).label, page);
        return {
          members: team.members,
          seats: team.seats,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, team.total),
        };
      },
    );
  };
}
