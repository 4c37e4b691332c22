import type { LabelRow } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import { labelSubject, readCache } from '../../db/read-cache.ts';
import { type ApiError, errors } from '../../errors.ts';
import {
  cheapestPlanWithFeature,
  cheapestPlanWithScope,
  type FeatureName,
  isLimitName,
  type LimitName,
  type Limits,
  PLANS,
  type Plan,
  planRaisingLimit,
  type Scope,
  USAGE_NAMES,
  type UsageName,
} from './plans.catalog.ts';
import { countUsage, selectUsageCounts } from './plans.store.ts';

/** A label's plan with its per-label overrides (Enterprise agreements) applied. */
export interface Terms {
  readonly plan: Plan;
  readonly limits: Limits;
  readonly commission_rate: number;
}

export type Usage = Record<UsageName, number>;

export function parseLimitOverrides(
  stored: LabelRow['limit_overrides'],
): Partial<Record<LimitName, number | null>> {
  const overrides: Partial<Record<LimitName, number | null>> = {};
  for (const [name, value] of Object.entries(readJson(stored))) {
    if (isLimitName(name)) overrides[name] = value;
  }
  return overrides;
}

export function termsOf(label: LabelRow): Terms {
  const plan = PLANS[label.plan];
  return {
    plan,
    limits: { ...plan.limits, ...parseLimitOverrides(label.limit_overrides) },
    commission_rate: label.commission_override ?? plan.commission_rate,
  };
}

const cachedUsage = readCache<Usage>('usage');

/** A label's usage, kept until a write to what it counts bumps the label's version. */
export async function usageOf(db: Db, labelId: number): Promise<Usage> {
  return cachedUsage(
    db,
    String(labelId),
    () => loadUsage(db, labelId),
    () => [labelSubject(labelId)],
  );
}

async function loadUsage(db: Db, labelId: number): Promise<Usage> {
  const counts = await selectUsageCounts(db, labelId);
  return Object.fromEntries(USAGE_NAMES.map((name) => [name, Number(counts[name] ?? 0)])) as Usage;
}

/**
 * Throws 403 `plan_limit` unless one more of `name` fits in the label's limit. `workspaceId` is
 * where it is counted: the label itself, or its sandbox, which has the same limits on its own copy.
 */
export async function enforceLimit(
  db: Db,
  label: LabelRow,
  name: UsageName,
  workspaceId: number = label.id,
): Promise<void> {
  const terms = termsOf(label);
  const limit = terms.limits[name];
  if (limit === null) return;
  const used = await countUsage(db, name, workspaceId);
  if (used < limit) return;
  throw errors.planLimit({
    resource: name,
    plan: terms.plan.key,
    limit,
    used,
    required_plan: planRaisingLimit(terms.plan.key, name, limit),
  });
}

/** Throws 403 `plan_required` unless the label's plan has the feature. */
export function requireFeature(label: LabelRow, feature: FeatureName): void {
  const { plan } = termsOf(label);
  if (plan.features[feature]) return;
  const requiredPlan = cheapestPlanWithFeature(feature);
  throw errors.planRequired(requiredPlan, `This needs the ${PLANS[requiredPlan].name} plan or above`);
}

/** The 403 `plan_required` for a scope a key was granted but its label's plan does not include. */
export function scopeOutsidePlan(scope: Scope): ApiError {
  const requiredPlan = cheapestPlanWithScope(scope);
  return errors.planRequired(
    requiredPlan,
    `The ${scope} scope needs the ${PLANS[requiredPlan].name} plan or above`,
    { required_scope: scope },
  );
}
