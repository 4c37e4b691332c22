import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { findLabel, type LabelRow } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import { type AddressedTable, ownerOf, type Workspace } from '../../db/scope.ts';
import { PLAN_KEYS, type PlanKey } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { slugify } from '../../lib/slug.ts';
import { isLimitName, isPlanKey, type LimitName, parseLimitOverrides } from '../plans/index.ts';
import { findSandboxOf, insertLabel, listLabels, slugTaken, updateLabelRow } from './labels.store.ts';

export interface LabelView {
  id: number;
  name: string;
  slug: string;
  plan: PlanKey;
  contract_signed: boolean;
  limit_overrides: Partial<Record<LimitName, number | null>>;
  commission_override: number | null;
  created_at: string;
}

export function presentLabel(label: LabelRow): LabelView {
  return {
    id: label.id,
    name: label.name,
    slug: label.slug,
    plan: label.plan,
    contract_signed: label.contract_signed === 1,
    limit_overrides: parseLimitOverrides(label.limit_overrides),
    commission_override: label.commission_override,
    created_at: label.created_at,
  };
}

function requirePlan(plan: string): PlanKey {
  if (!isPlanKey(plan)) throw errors.invalid('plan', `plan must be one of ${PLAN_KEYS.join(', ')}`);
  return plan;
}

async function uniqueSlug(ctx: AppContext, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await slugTaken(ctx.db, candidate))) return candidate;
  }
}

export async function createLabel(
  ctx: AppContext,
  input: { name: string; plan?: string; contractSigned?: boolean },
): Promise<LabelView> {
  const name = input.name.trim();
  if (!name) throw errors.invalid('name', 'name is required');
  const plan = requirePlan(input.plan ?? 'start');
  const slug = await uniqueSlug(ctx, slugify(name, 'label'));
  const row = await insertLabel(ctx.db, {
    name,
    slug,
    plan,
    contract_signed: input.contractSigned ? 1 : 0,
    limit_overrides: '{}',
    commission_override: null,
    parent_id: null,
    created_at: isoNow(ctx.clock),
  });
  return presentLabel(row);
}

export async function getLabel(ctx: AppContext, id: number): Promise<LabelRow> {
  const label = await findLabel(ctx.db, id);
  if (!label || label.parent_id !== null) throw errors.notFound('Label');
  return label;
}

export interface LabelUpdate {
  plan?: string;
  contractSigned?: boolean;
  /** A number, null for unlimited, or 'default' to drop the override and use the plan's value. */
  limits?: ReadonlyArray<readonly [string, number | null | 'default']>;
  commission?: number | 'default';
}

function applyLimitOverrides(
  current: Partial<Record<LimitName, number | null>>,
  changes: NonNullable<LabelUpdate['limits']>,
): Partial<Record<LimitName, number | null>> {
  const next = { ...current };
  for (const [name, value] of changes) {
    if (!isLimitName(name)) throw errors.invalid('limit', `unknown limit "${name}"`);
    if (value === 'default') delete next[name];
    else if (value !== null && (!Number.isInteger(value) || value < 0)) {
      throw errors.invalid('limit', `limit ${name} must be a whole number, "unlimited" or "default"`);
    } else next[name] = value;
  }
  return next;
}

function checkCommission(commission: LabelUpdate['commission']): number | null | undefined {
  if (commission === undefined) return undefined;
  if (commission === 'default') return null;
  if (!Number.isFinite(commission) || commission < 0 || commission >= 1) {
    throw errors.invalid('commission', 'commission must be a fraction from 0 up to (not including) 1');
  }
  return commission;
}

export async function updateLabel(ctx: AppContext, id: number, update: LabelUpdate): Promise<LabelView> {
  const label = await getLabel(ctx, id);
  const plan = update.plan === undefined ? undefined : requirePlan(update.plan);
  const overrides = update.limits
    ? JSON.stringify(applyLimitOverrides(parseLimitOverrides(label.limit_overrides), update.limits))
    : undefined;
  const commission = checkCommission(update.commission);
  const patch = {
    ...(plan !== undefined && { plan }),
    ...(update.contractSigned !== undefined && { contract_signed: update.contractSigned ? 1 : 0 }),
    ...(overrides !== undefined && { limit_overrides: overrides }),
    ...(commission !== undefined && { commission_override: commission }),
  };
  if (Object.keys(patch).length === 0) return presentLabel(label);
  return presentLabel(await updateLabelRow(ctx.db, id, patch));
}

export async function listLabelViews(ctx: AppContext): Promise<LabelView[]> {
  return (await listLabels(ctx.db)).map(presentLabel);
}

/**
 * A sandbox is a workspace of its own: a label row marked as the sandbox of its parent. It takes
 * its plan and terms from the parent at request time, so only identity is stored here.
 */
export async function ensureSandboxWorkspace(ctx: AppContext, parent: LabelRow): Promise<LabelRow> {
  const existing = await findSandboxOf(ctx.db, parent.id);
  if (existing) return existing;
  return insertLabel(ctx.db, {
    name: parent.name,
    slug: await uniqueSlug(ctx, `${parent.slug}-sandbox`),
    plan: parent.plan,
    contract_signed: 1,
    limit_overrides: '{}',
    commission_override: null,
    parent_id: parent.id,
    created_at: isoNow(ctx.clock),
  });
}

/**
 * The workspace of a row named by id alone (a release the distributor reports on, a request the
 * operator answers); undefined when there is no such row.
 */
export async function workspaceOwning(
  db: Db,
  table: AddressedTable,
  id: number,
): Promise<Workspace | undefined> {
  const ownerId = await ownerOf(db, table, id);
  const label = ownerId === undefined ? undefined : await findLabel(db, ownerId);
  return label && workspaceOfLabel(label);
}

/** The workspace a label row is: the label itself, or the sandbox of its parent. */
export function workspaceOfLabel(label: LabelRow): Workspace {
  return {
    id: label.id,
    labelId: label.parent_id ?? label.id,
    sandbox: label.parent_id !== null,
    catalogCopied: label.parent_id === null || label.sandbox_copied_at !== null,
  };
}
