import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PayoutsTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { PageRequest } from '../../http/pagination.ts';
import type { PeriodRange } from './royalty-lines.store.ts';

/** What each label was credited, one payout per label and month of a statement. */

export type PayoutRow = Selectable<PayoutsTable>;

export async function insertPayout(db: Db, row: Insertable<PayoutsTable>): Promise<PayoutRow> {
  return db.insertInto('payouts').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function payoutsOfStatement(db: Db, statementId: number): Promise<PayoutRow[]> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('statement_id', '=', statementId)
    .orderBy('label_id')
    .orderBy('period')
    .execute();
}

export async function hasPayouts(db: Db, workspaceId: number): Promise<boolean> {
  const row = await db
    .selectFrom('payouts')
    .select('id')
    .where(ownedBy('payouts', workspaceId))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function listPayouts(db: Db, workspaceId: number, page: Pick<PageRequest, 'limit' | 'offset'>) {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where(ownedBy('payouts', workspaceId))
    .orderBy('period', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countPayouts(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('payouts')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('payouts', workspaceId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface MonthPayouts {
  period: string;
  payouts: number;
  amount_cents: number;
  commission_cents: number;
  net_cents: number;
  applied_at: string;
}

/** Payouts summed per month, the latest month first. */
export async function payoutsByMonth(
  db: Db,
  workspaceId: number,
  range: PeriodRange,
): Promise<MonthPayouts[]> {
  let query = db.selectFrom('payouts').where(ownedBy('payouts', workspaceId));
  if (range.from !== undefined) query = query.where('period', '>=', range.from);
  if (range.to !== undefined) query = query.where('period', '<=', range.to);
  const rows = await query
    .select([
      'period',
      sql<string | number>`count(*)`.as('payouts'),
      sql<string | number>`sum(amount_cents)`.as('amount_cents'),
      sql<string | number>`sum(commission_cents)`.as('commission_cents'),
      sql<string | number>`sum(net_cents)`.as('net_cents'),
      sql<string>`max(applied_at)`.as('applied_at'),
    ])
    .groupBy('period')
    .orderBy('period', 'desc')
    .execute();
  return rows.map((row) => ({
    period: row.period,
    payouts: Number(row.payouts),
    amount_cents: Number(row.amount_cents),
    commission_cents: Number(row.commission_cents),
    net_cents: Number(row.net_cents),
    applied_at: row.applied_at,
  }));
}
