import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { RoyaltyLinesTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { inBatches } from './finance.batches.ts';

/** A workspace's sales, line by line as the statements reported them, and their totals. */

export type LineRow = Selectable<RoyaltyLinesTable>;

/** Months as `YYYY-MM`, both ends included; an end left out is open. */
export interface PeriodRange {
  readonly from?: string;
  readonly to?: string;
}

export interface LineFilters extends PeriodRange {
  readonly releaseId?: number;
  readonly dsp?: string;
  readonly country?: string;
}

export async function insertLines(db: Db, rows: readonly Insertable<RoyaltyLinesTable>[]): Promise<void> {
  await inBatches(rows, (batch) => db.insertInto('royalty_lines').values(batch).execute());
}

function linesOf(db: Db, workspaceId: number, filters: LineFilters) {
  let query = db.selectFrom('royalty_lines').where(ownedBy('royalty_lines', workspaceId));
  if (filters.from !== undefined) query = query.where('period', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('period', '<=', filters.to);
  if (filters.releaseId !== undefined) query = query.where('release_id', '=', filters.releaseId);
  if (filters.dsp !== undefined) query = query.where('dsp', '=', filters.dsp);
  if (filters.country !== undefined) query = query.where('country', '=', filters.country);
  return query;
}

export async function listLines(
  db: Db,
  workspaceId: number,
  filters: LineFilters,
  page: Pick<PageRequest, 'limit' | 'offset'>,
): Promise<LineRow[]> {
  return linesOf(db, workspaceId, filters)
    .selectAll()
    .orderBy('period', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countLines(db: Db, workspaceId: number, filters: LineFilters): Promise<number> {
  const row = await linesOf(db, workspaceId, filters)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface Totals {
  key: string;
  quantity: number;
  revenue_micros: number;
}

/** Quantity and revenue per platform or per country, the largest revenue first. */
export async function totalsBy(
  db: Db,
  workspaceId: number,
  dimension: 'dsp' | 'country' | 'period',
  range: PeriodRange,
): Promise<Totals[]> {
  const rows = await linesOf(db, workspaceId, range)
    .select([
      sql.ref<string>(dimension).as('key'),
      sql<string | number>`sum(quantity)`.as('quantity'),
      sql<string | number>`sum(revenue_micros)`.as('revenue_micros'),
    ])
    .groupBy(dimension)
    .orderBy(sql`sum(revenue_micros)`, 'desc')
    .orderBy(dimension)
    .execute();
  return rows.map((row) => ({
    key: row.key,
    quantity: Number(row.quantity),
    revenue_micros: Number(row.revenue_micros),
  }));
}
