import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { readCache } from '../../db/read-cache.ts';
import { countFor, type LabelCount } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { liveKeyCount } from '../keys/keys.store.ts';
import { type LabelRow, parseLimitOverrides, planOf } from '../labels/labels.service.ts';
import { memberCount } from '../team/team.store.ts';
import {
  cheapestPlanWithFeature,
  type FeatureName,
  type Limits,
  PLANS,
  type Plan,
  planRaisingLimit,
  USAGE_NAMES,
  type UsageName,
} from './plans.catalog.ts';

/** A label's plan with its per-label overrides (Enterprise agreements) applied. */
export interface Terms {
  readonly plan: Plan;
  readonly limits: Limits;
  readonly commission_rate: number;
}

export type Usage = Record<UsageName, number>;

export function termsOf(label: LabelRow): Terms {
  const plan = PLANS[planOf(label)];
  return {
    plan,
    limits: { ...plan.limits, ...parseLimitOverrides(label.limit_overrides) },
    commission_rate: label.commission_override ?? plan.commission_rate,
  };
}

/** Nothing of these kinds can be stored until their modules exist, so their use is zero. */
const noneStoredYet: LabelCount = (eb) => eb.val(0);

/** Where each limit's use is counted; always for the label itself, never its sandbox. */
const USAGE_COUNTS: Record<UsageName, LabelCount> = {
  releases: noneStoredYet,
  artists: noneStoredYet,
  members: memberCount,
  links: noneStoredYet,
  api_keys: liveKeyCount,
  webhooks: noneStoredYet,
};

/** Every count in one query, prepared once: /me shows them all on each call. */
const selectUsage = preparedQuery((db: Db, labelId: number) =>
  db.selectNoFrom((eb) => USAGE_NAMES.map((name) => USAGE_COUNTS[name](eb, labelId).as(name))),
);

const cachedUsage = readCache<Usage>();

export async function usageOf(db: Db, labelId: number): Promise<Usage> {
  return cachedUsage(db, String(labelId), () => loadUsage(db, labelId));
}

async function loadUsage(db: Db, labelId: number): Promise<Usage> {
  const [row] = await selectUsage(db, labelId);
  const counts: Record<string, unknown> = row ?? {};
  return Object.fromEntries(USAGE_NAMES.map((name) => [name, Number(counts[name] ?? 0)])) as Usage;
}

/** Throws 403 `plan_limit` unless `adding` more of `name` fit in the label's limit. */
export async function enforceLimit(db: Db, label: LabelRow, name: UsageName, adding = 1): Promise<void> {
  const terms = termsOf(label);
  const limit = terms.limits[name];
  if (limit === null) return;
  const used = await countFor(db, USAGE_COUNTS[name], label.id);
  if (used + adding <= limit) return;
  throw errors.planLimit({
    plan: terms.plan.key,
    limit: name,
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
