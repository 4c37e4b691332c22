import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PLAN_KEYS } from '../../db/values.ts';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import { PLANS, SCOPES } from './plans.catalog.ts';
import { FeaturesSchema, LimitsSchema } from './plans.schemas.ts';

const PlanSchema = Type.Object({
  key: StringEnum(PLAN_KEYS),
  name: Type.String(),
  price_usd: Nullable(Type.Number({ description: 'USD per month; null: by agreement' })),
  commission_rate: Type.Number({ description: 'Fraction of revenue kept as commission' }),
  limits: LimitsSchema,
  features: FeaturesSchema,
  scopes: Type.Array(StringEnum(SCOPES), {
    description: 'Scopes keys on this plan may use',
  }),
});

const PlansBody = Type.Object({ currency: Type.Literal('USD'), plans: Type.Array(PlanSchema) });

export const plansRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/plans',
    {
      schema: {
        tags: ['identity'],
        operationId: 'listPlans',
        summary: 'Plans with prices and limits',
        description: 'No key needed.',
        response: { 200: PlansBody },
      },
    },
    async () => ({
      currency: 'USD' as const,
      plans: PLAN_KEYS.map((key) => {
        const { scopes, ...plan } = PLANS[key];
        return { ...plan, scopes: [...scopes] };
      }),
    }),
  );
};
