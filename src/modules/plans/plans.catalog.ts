import { PLAN_KEYS, type PlanKey } from '../../db/values.ts';

export const LIMIT_NAMES = [
  'releases',
  'artists',
  'members',
  'links',
  'api_keys',
  'webhooks',
  'rate',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
/** Limits whose use is counted from stored rows (`rate` is a per-minute budget instead). */
export const USAGE_NAMES = ['releases', 'artists', 'members', 'links', 'api_keys', 'webhooks'] as const;
export type UsageName = (typeof USAGE_NAMES)[number];

export const FEATURE_NAMES = [
  'bot',
  'events_feed',
  'csv_export',
  'webhooks',
  'full_api',
  'link_appearance',
  'personal_mail',
  'priority_support',
  'sla',
  'personal_manager',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

export const SCOPES = [
  'catalog:read',
  'stats:read',
  'finance:read',
  'links:read',
  'links:write',
  'catalog:write',
  'releases:submit',
  'team:read',
  'support:write',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export type Limits = Readonly<Record<LimitName, number | null>>;

export interface Plan {
  readonly key: PlanKey;
  readonly name: string;
  /** USD per month; null where the price is by agreement. */
  readonly price_usd: number | null;
  readonly commission_rate: number;
  readonly limits: Limits;
  readonly features: Readonly<Record<FeatureName, boolean>>;
  /** Scopes a key on this plan may use, whatever it was granted. */
  readonly scopes: readonly Scope[];
}

/**
 * Start: "API for reading catalog, links and statistics", and 50 smart links. The contract limits
 * Start's links and refuses it only their appearance, so its keys manage links too.
 */
const START_SCOPES: readonly Scope[] = ['catalog:read', 'stats:read', 'links:read', 'links:write'];

const featuresFrom = (enabled: readonly FeatureName[]): Record<FeatureName, boolean> =>
  Object.fromEntries(FEATURE_NAMES.map((name) => [name, enabled.includes(name)])) as Record<
    FeatureName,
    boolean
  >;

const LABEL_FEATURES: readonly FeatureName[] = [
  'bot',
  'events_feed',
  'webhooks',
  'full_api',
  'link_appearance',
  'personal_mail',
];
const PRO_FEATURES: readonly FeatureName[] = [...LABEL_FEATURES, 'csv_export', 'priority_support'];

/** The plans of the contract: one table, everything else reads it. */
export const PLANS: Readonly<Record<PlanKey, Plan>> = {
  start: {
    key: 'start',
    name: 'Start',
    price_usd: 19,
    commission_rate: 0.25,
    limits: { releases: 100, artists: null, members: 2, links: 50, api_keys: 1, webhooks: 0, rate: 60 },
    features: featuresFrom([]),
    scopes: START_SCOPES,
  },
  label: {
    key: 'label',
    name: 'Label',
    price_usd: 49,
    commission_rate: 0.15,
    limits: { releases: 500, artists: null, members: 5, links: null, api_keys: 5, webhooks: 3, rate: 120 },
    features: featuresFrom(LABEL_FEATURES),
    scopes: SCOPES,
  },
  pro: {
    key: 'pro',
    name: 'Pro',
    price_usd: 99,
    commission_rate: 0.15,
    limits: {
      releases: 2000,
      artists: null,
      members: 10,
      links: null,
      api_keys: 10,
      webhooks: 10,
      rate: 300,
    },
    features: featuresFrom(PRO_FEATURES),
    scopes: SCOPES,
  },
  enterprise: {
    key: 'enterprise',
    name: 'Enterprise',
    price_usd: null,
    commission_rate: 0.1,
    limits: {
      releases: null,
      artists: null,
      members: 50,
      links: null,
      api_keys: 25,
      webhooks: 25,
      rate: 600,
    },
    features: featuresFrom([...PRO_FEATURES, 'sla', 'personal_manager']),
    scopes: SCOPES,
  },
};

export function isPlanKey(value: string): value is PlanKey {
  return (PLAN_KEYS as readonly string[]).includes(value);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isLimitName(value: string): value is LimitName {
  return (LIMIT_NAMES as readonly string[]).includes(value);
}

/** The cheapest plan above `current` whose limit is larger (null: unlimited), or null if none is. */
export function planRaisingLimit(
  current: PlanKey,
  limit: LimitName,
  currentValue: number | null,
): PlanKey | null {
  if (currentValue === null) return null;
  const higher = PLAN_KEYS.slice(PLAN_KEYS.indexOf(current) + 1);
  return (
    higher.find((key) => {
      const value = PLANS[key].limits[limit];
      return value === null || value > currentValue;
    }) ?? null
  );
}

/** The cheapest plan that offers a feature. */
export function cheapestPlanWithFeature(feature: FeatureName): PlanKey {
  return PLAN_KEYS.find((key) => PLANS[key].features[feature]) ?? 'enterprise';
}

/** The cheapest plan that lets keys use a scope. */
export function cheapestPlanWithScope(scope: Scope): PlanKey {
  return PLAN_KEYS.find((key) => PLANS[key].scopes.includes(scope)) ?? 'enterprise';
}
