import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { calendarDate } from '../../http/fields.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { isMonth } from '../../lib/dates.ts';
import { centsOfMicros, dollars, dollarsOfMicros } from '../../lib/money.ts';
import { percent } from '../../lib/percent.ts';
import { countryName } from '../lookups/index.ts';
import type { Terms } from '../plans/index.ts';
import { platformName } from '../platforms/index.ts';
import { balanceSums } from './balances.store.ts';
import { balanceOf } from './finance.money.ts';
import { ensureSandboxFinance } from './finance.sandbox.ts';
import type {
  CountriesBody,
  LinesBody,
  PayoutsBody,
  PlatformsBody,
  StatementsBody,
  SummaryBody,
  WithdrawalsBody,
} from './finance.schemas.ts';
import { countPayouts, hasPayouts, listPayouts, type PayoutRow, payoutsByMonth } from './payouts.store.ts';
import {
  countLines,
  type LineFilters,
  type LineRow,
  listLines,
  type PeriodRange,
  type Totals,
  totalsBy,
} from './royalty-lines.store.ts';
import { OPEN_WITHDRAWAL_STATUSES } from './withdrawals.service.ts';
import { countWithdrawals, listWithdrawals } from './withdrawals.store.ts';

/** Whose finance a request reads: the workspace's figures on the label's terms. */
export interface FinanceReader {
  readonly workspace: Workspace;
  readonly terms: Terms;
}

type Paged<B> = Omit<B, 'page' | 'per_page' | 'total'> & { total: number };

export const NO_STATEMENT_NOTE =
  'No royalty statement has reached this label yet: figures appear with the first payout.';

const RECENT_PAYOUTS = 5;

/**
 * The workspace whose figures are read. A sandbox's are invented the first time they are asked
 * for, so that the same sandbox always shows the same figures and never the label's real ones.
 */
async function readableWorkspace(ctx: AppContext, reader: FinanceReader): Promise<number> {
  if (reader.workspace.sandbox) await ensureSandboxFinance(ctx, reader.workspace, reader.terms);
  return reader.workspace.id;
}

async function noteFor(ctx: AppContext, workspaceId: number): Promise<{ note?: string }> {
  return (await hasPayouts(ctx.db, workspaceId)) ? {} : { note: NO_STATEMENT_NOTE };
}

/** `from`/`to` as months: a date stands for its month. */
export function periodRange(query: { from?: string; to?: string }): PeriodRange {
  const from = query.from === undefined ? undefined : monthOf('from', query.from);
  const to = query.to === undefined ? undefined : monthOf('to', query.to);
  if (from !== undefined && to !== undefined && from > to) {
    throw errors.invalid('to', 'to must not be before from');
  }
  return { from, to };
}

function monthOf(field: string, value: string): string {
  if (isMonth(value)) return value;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return calendarDate(field, value).slice(0, 7);
  throw errors.invalid(field, `${field} must be a month YYYY-MM or a date YYYY-MM-DD`);
}

function presentPayout(row: PayoutRow) {
  return {
    number: row.number,
    period: row.period,
    amount: dollars(Number(row.amount_cents)),
    commission: dollars(Number(row.commission_cents)),
    net_amount: dollars(Number(row.net_cents)),
    // Payouts are credited to the balance as the statement is imported.
    credited: true,
    applied_at: row.applied_at,
  };
}

export async function financeSummary(
  ctx: AppContext,
  reader: FinanceReader,
): Promise<Static<typeof SummaryBody>> {
  const id = await readableWorkspace(ctx, reader);
  const balance = balanceOf(await balanceSums(ctx.db, id));
  const open = await listWithdrawals(ctx.db, id, { limit: 100, offset: 0 }, OPEN_WITHDRAWAL_STATUSES);
  const recent = await listPayouts(ctx.db, id, { limit: RECENT_PAYOUTS, offset: 0 });
  return {
    currency: 'USD',
    balance: {
      available: dollars(balance.availableCents),
      earned: dollars(balance.earnedCents),
      withdrawn: dollars(balance.withdrawnCents),
    },
    label_terms: {
      commission_rate: reader.terms.commission_rate,
      min_withdrawal: dollars(ctx.config.minWithdrawalCents),
    },
    pending_withdrawals: open.map((row) => ({
      id: row.id,
      amount: dollars(Number(row.amount_cents)),
      status: row.status === 'processing' ? 'processing' : 'pending',
      created_at: row.created_at,
    })),
    recent_payouts: recent.map(({ number, period, amount_cents, commission_cents, applied_at }) => ({
      number,
      period,
      amount: dollars(Number(amount_cents)),
      commission: dollars(Number(commission_cents)),
      applied_at,
    })),
    ...(recent.length === 0 && { note: NO_STATEMENT_NOTE }),
  };
}

export async function payoutPage(
  ctx: AppContext,
  reader: FinanceReader,
  page: PageRequest,
): Promise<Paged<Static<typeof PayoutsBody>>> {
  const id = await readableWorkspace(ctx, reader);
  const rows = await listPayouts(ctx.db, id, page);
  return {
    currency: 'USD',
    payouts: rows.map(presentPayout),
    total: await countPayouts(ctx.db, id),
    ...(await noteFor(ctx, id)),
  };
}

export async function withdrawalPage(
  ctx: AppContext,
  reader: FinanceReader,
  page: PageRequest,
): Promise<Paged<Static<typeof WithdrawalsBody>>> {
  const id = await readableWorkspace(ctx, reader);
  const rows = await listWithdrawals(ctx.db, id, page);
  return {
    currency: 'USD',
    withdrawals: rows.map((row) => ({
      id: row.id,
      amount: dollars(Number(row.amount_cents)),
      status: row.status,
      created_at: row.created_at,
      updated_at: row.updated_at,
    })),
    total: await countWithdrawals(ctx.db, id),
    ...(await noteFor(ctx, id)),
  };
}

function shares(totals: readonly Totals[]) {
  const whole = totals.reduce((sum, item) => sum + item.revenue_micros, 0);
  return totals.map((item) => ({
    key: item.key,
    quantity: item.quantity,
    revenue: dollars(centsOfMicros(item.revenue_micros)),
    share_percent: percent(item.revenue_micros, whole),
  }));
}

export async function platformTotals(
  ctx: AppContext,
  reader: FinanceReader,
  range: PeriodRange,
): Promise<Static<typeof PlatformsBody>> {
  const id = await readableWorkspace(ctx, reader);
  const totals = shares(await totalsBy(ctx.db, id, 'dsp', range));
  return {
    currency: 'USD',
    platforms: totals.map(({ key, ...rest }) => ({ dsp: key, name: platformName(key), ...rest })),
    ...(await noteFor(ctx, id)),
  };
}

export async function countryTotals(
  ctx: AppContext,
  reader: FinanceReader,
  range: PeriodRange,
): Promise<Static<typeof CountriesBody>> {
  const id = await readableWorkspace(ctx, reader);
  const totals = shares(await totalsBy(ctx.db, id, 'country', range));
  return {
    currency: 'USD',
    countries: totals.map(({ key, ...rest }) => ({
      country: key,
      name: countryName(key),
      ...rest,
    })),
    ...(await noteFor(ctx, id)),
  };
}

/** Per month: the payouts' amounts and the quantity sold, the latest month first. */
export async function monthlyStatements(
  ctx: AppContext,
  reader: FinanceReader,
  range: PeriodRange,
): Promise<Static<typeof StatementsBody>> {
  const id = await readableWorkspace(ctx, reader);
  const months = await payoutsByMonth(ctx.db, id, range);
  const quantities = new Map(
    (await totalsBy(ctx.db, id, 'period', range)).map((month) => [month.key, month.quantity]),
  );
  return {
    currency: 'USD',
    statements: months.map((month) => ({
      period: month.period,
      quantity: quantities.get(month.period) ?? 0,
      amount: dollars(month.amount_cents),
      commission: dollars(month.commission_cents),
      net_amount: dollars(month.net_cents),
      applied_at: month.applied_at,
    })),
    ...(await noteFor(ctx, id)),
  };
}

function presentLine(row: LineRow) {
  return {
    id: row.id,
    period: row.period,
    release_id: row.release_id,
    track_id: row.track_id,
    upc: row.upc,
    isrc: row.isrc,
    dsp: row.dsp,
    country: row.country,
    quantity: Number(row.quantity),
    revenue: dollarsOfMicros(Number(row.revenue_micros)),
  };
}

export async function linePage(
  ctx: AppContext,
  reader: FinanceReader,
  filters: LineFilters,
  page: PageRequest,
): Promise<Paged<Static<typeof LinesBody>>> {
  const id = await readableWorkspace(ctx, reader);
  const rows = await listLines(ctx.db, id, filters, page);
  return {
    currency: 'USD',
    lines: rows.map(presentLine),
    total: await countLines(ctx.db, id, filters),
    ...(await noteFor(ctx, id)),
  };
}
