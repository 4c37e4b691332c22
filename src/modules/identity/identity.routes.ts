import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { PLAN_KEYS } from '../../db/values.ts';
import { sendRepresentation } from '../../http/etag.ts';
import { authOf } from '../../http/request-context.ts';
import { DateTime, Nullable, StringEnum } from '../../http/schemas.ts';
import { FeaturesSchema, LimitsSchema, SCOPES, USAGE_NAMES, UsageSchema } from '../plans/index.ts';
import { callerRepresentation, describeUsage } from './identity.service.ts';

const ScopeList = Type.Array(StringEnum(SCOPES));

const MeBody = Type.Object({
  label: Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() }),
  key: Type.Object({
    prefix: Type.String({ examples: ['svc_Ab12Cd34'] }),
    scopes: {
      ...ScopeList,
      description: "Scopes this key can use now: granted scopes the label's plan allows",
    },
    created_at: DateTime,
    sandbox: Type.Optional(Type.Literal(true)),
  }),
  plan: Type.Object({
    key: StringEnum(PLAN_KEYS),
    name: Type.String(),
    commission_rate: Type.Number(),
    limits: LimitsSchema,
    usage: UsageSchema,
    features: FeaturesSchema,
  }),
  rate_limit: Type.Object({ per_minute: Nullable(Type.Integer()) }),
  api_version: Type.String({ examples: ['1.1.0'] }),
  docs: Type.String({ format: 'uri' }),
  openapi: Type.String({ format: 'uri' }),
  sandbox: Type.Optional(Type.Literal(true)),
});

const UsageItem = Type.Object({
  used: Type.Integer({ minimum: 0 }),
  limit: Nullable(Type.Integer({ minimum: 0 })),
  remaining: Nullable(Type.Integer({ minimum: 0 })),
});

const UsageBody = Type.Object({
  plan: StringEnum(PLAN_KEYS),
  usage: Type.Object(Object.fromEntries(USAGE_NAMES.map((name) => [name, UsageItem]))),
  rate_limit: Type.Object({
    per_minute: Nullable(Type.Integer()),
    remaining: Nullable(Type.Integer({ minimum: 0, description: 'null when the rate is unlimited' })),
    reset: Nullable(
      Type.Integer({ description: 'Unix seconds when the oldest counted request leaves the window' }),
    ),
  }),
});

export function identityRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/me',
      {
        config: { access: 'any_key' },
        schema: {
          tags: ['identity'],
          operationId: 'getMe',
          summary: 'The calling key, its label, plan and rate limit',
          response: { 200: MeBody },
        },
      },
      (request, reply) => sendRepresentation(reply, callerRepresentation(ctx, authOf(request), reply)),
    );

    app.get(
      '/me/usage',
      {
        config: { access: 'any_key' },
        schema: {
          tags: ['identity'],
          operationId: 'getMyUsage',
          summary: "How much of each plan limit the label uses, and this minute's request budget",
          response: { 200: UsageBody },
        },
      },
      async (request) => describeUsage(ctx, authOf(request), request.rate),
    );
  };
}
