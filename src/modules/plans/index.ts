export {
  isLimitName,
  isPlanKey,
  isScope,
  type LimitName,
  PLANS,
  SCOPES,
  type Scope,
  USAGE_NAMES,
} from './plans.catalog.ts';
export { plansRoutes } from './plans.routes.ts';
export { FeaturesSchema, LimitsSchema, UsageSchema } from './plans.schemas.ts';
export {
  enforceLimit,
  parseLimitOverrides,
  requireFeature,
  scopeOutsidePlan,
  type Terms,
  termsOf,
  usageOf,
} from './plans.service.ts';
export { countUsage } from './plans.store.ts';
