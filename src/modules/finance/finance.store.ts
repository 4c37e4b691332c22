import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type Dialect, forUpdate } from '../../db/portable.ts';
import type {
  PayoutsTable,
  RoyaltyLinesTable,
  RoyaltyStatementsTable,
  RoyaltyUnmatchedLinesTable,
  WithdrawalsTable,
} from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { PageRequest } from '../../http/pagination.ts';

export type StatementRow = Selectable<RoyaltyStatementsTable>;
export type LineRow = Selectable<RoyaltyLinesTable>;
export type UnmatchedLineRow = Selectable<RoyaltyUnmatchedLinesTable>;
export type PayoutRow = Selectable<PayoutsTable>;
export type WithdrawalRow = Selectable<WithdrawalsTable>;

/** Rows per INSERT and values per IN list: far below SQLite's and PostgreSQL's limits on bound values. */
const BATCH = 500;

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

async function insertInBatches<T>(
  rows: readonly T[],
  insert: (batch: T[]) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH) {
    await insert(rows.slice(start, start + BATCH));
  }
}

// --- statements (operator side, across labels) ---

export async function findStatementByHash(db: Db, contentHash: string): Promise<StatementRow | undefined> {
  return db
    .selectFrom('royalty_statements')
    .selectAll()
    .where('content_hash', '=', contentHash)
    .executeTakeFirst();
}

export async function findStatement(db: Db, id: number): Promise<StatementRow | undefined> {
  return db.selectFrom('royalty_statements').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertStatement(
  db: Db,
  row: Insertable<RoyaltyStatementsTable>,
): Promise<StatementRow> {
  return db.insertInto('royalty_statements').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertLines(db: Db, rows: readonly Insertable<RoyaltyLinesTable>[]): Promise<void> {
  await insertInBatches(rows, (batch) => db.insertInto('royalty_lines').values(batch).execute());
}

export async function insertUnmatchedLines(
  db: Db,
  rows: readonly Insertable<RoyaltyUnmatchedLinesTable>[],
): Promise<void> {
  await insertInBatches(rows, (batch) => db.insertInto('royalty_unmatched_lines').values(batch).execute());
}

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

export async function unmatchedLinesOf(db: Db, statementId: number): Promise<UnmatchedLineRow[]> {
  return db
    .selectFrom('royalty_unmatched_lines')
    .selectAll()
    .where('statement_id', '=', statementId)
    .orderBy('line_number')
    .execute();
}

/** Unmatched lines of every statement, the newest statement first. */
export async function listUnmatchedLines(db: Db, limit: number): Promise<UnmatchedLineRow[]> {
  return db
    .selectFrom('royalty_unmatched_lines')
    .selectAll()
    .orderBy('statement_id', 'desc')
    .orderBy('line_number')
    .limit(limit)
    .execute();
}

export interface ReleaseMatch {
  upc: string;
  release_id: number;
  label_id: number;
}

export interface TrackMatch {
  isrc: string;
  track_id: number;
  release_id: number;
  release_upc: string | null;
  label_id: number;
}

/** Releases of real labels (never a sandbox's copy) carrying any of the UPCs. */
export async function releasesByUpc(db: Db, upcs: readonly string[]): Promise<ReleaseMatch[]> {
  const found: ReleaseMatch[] = [];
  for (let start = 0; start < upcs.length; start += BATCH) {
    const rows = await db
      .selectFrom('releases')
      .innerJoin('labels', 'labels.id', 'releases.label_id')
      .select(['releases.upc', 'releases.id as release_id', 'releases.label_id'])
      .where('labels.parent_id', 'is', null)
      .where('releases.upc', 'in', upcs.slice(start, start + BATCH))
      .orderBy('releases.id')
      .execute();
    for (const row of rows) if (row.upc !== null) found.push({ ...row, upc: row.upc });
  }
  return found;
}

/** Tracks of real labels carrying any of the ISRCs, with their release's UPC. */
export async function tracksByIsrc(db: Db, isrcs: readonly string[]): Promise<TrackMatch[]> {
  const found: TrackMatch[] = [];
  for (let start = 0; start < isrcs.length; start += BATCH) {
    const rows = await db
      .selectFrom('tracks')
      .innerJoin('labels', 'labels.id', 'tracks.label_id')
      .innerJoin('releases', (join) =>
        join
          .onRef('releases.id', '=', 'tracks.release_id')
          .onRef('releases.label_id', '=', 'tracks.label_id'),
      )
      .select([
        'tracks.isrc',
        'tracks.id as track_id',
        'tracks.release_id',
        'releases.upc as release_upc',
        'tracks.label_id',
      ])
      .where('labels.parent_id', 'is', null)
      .where('tracks.isrc', 'in', isrcs.slice(start, start + BATCH))
      .orderBy('tracks.id')
      .execute();
    for (const row of rows) if (row.isrc !== null) found.push({ ...row, isrc: row.isrc });
  }
  return found;
}

// --- one workspace's finance ---

export interface BalanceSums {
  earned: number;
  paid: number;
  processing: number;
  pending: number;
}

/** Credited payouts and withdrawals by status, in cents, in one query. */
export async function balanceSums(db: Db, workspaceId: number): Promise<BalanceSums> {
  const withdrawals = (status: string) =>
    db
      .selectFrom('withdrawals')
      .select(sql<string | number>`coalesce(sum(amount_cents), 0)`.as('n'))
      .where(ownedBy('withdrawals', workspaceId))
      .where('status', '=', status);
  const row = await db
    .selectNoFrom([
      db
        .selectFrom('payouts')
        .select(sql<string | number>`coalesce(sum(net_cents), 0)`.as('n'))
        .where(ownedBy('payouts', workspaceId))
        .as('earned'),
      withdrawals('paid').as('paid'),
      withdrawals('processing').as('processing'),
      withdrawals('pending').as('pending'),
    ])
    .executeTakeFirstOrThrow();
  return {
    earned: Number(row.earned ?? 0),
    paid: Number(row.paid ?? 0),
    processing: Number(row.processing ?? 0),
    pending: Number(row.pending ?? 0),
  };
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

export async function listWithdrawals(
  db: Db,
  workspaceId: number,
  page: Pick<PageRequest, 'limit' | 'offset'>,
  statuses?: readonly string[],
): Promise<WithdrawalRow[]> {
  let query = db.selectFrom('withdrawals').selectAll().where(ownedBy('withdrawals', workspaceId));
  if (statuses) query = query.where('status', 'in', [...statuses]);
  return query.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countWithdrawals(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('withdrawals')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('withdrawals', workspaceId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertWithdrawal(db: Db, row: Insertable<WithdrawalsTable>): Promise<WithdrawalRow> {
  return db.insertInto('withdrawals').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function lockWithdrawal(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  id: number,
): Promise<WithdrawalRow | undefined> {
  return forUpdate(
    db.selectFrom('withdrawals').selectAll().where(ownedBy('withdrawals', workspaceId)).where('id', '=', id),
    dialect,
  ).executeTakeFirst();
}

export async function setWithdrawalStatus(
  db: Db,
  workspaceId: number,
  id: number,
  status: string,
  at: string,
): Promise<WithdrawalRow> {
  return db
    .updateTable('withdrawals')
    .set({ status, updated_at: at })
    .where(ownedBy('withdrawals', workspaceId))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
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

export interface Sellable {
  release_id: number;
  upc: string | null;
  track_id: number | null;
  isrc: string | null;
}

/** The workspace's first releases, each with its first track: what a sandbox's invented sales are of. */
export async function firstSellables(db: Db, workspaceId: number, limit: number): Promise<Sellable[]> {
  return db
    .selectFrom('releases')
    .leftJoin('tracks', (join) =>
      join
        .onRef('tracks.release_id', '=', 'releases.id')
        .onRef('tracks.label_id', '=', 'releases.label_id')
        .on('tracks.number', '=', 1),
    )
    .select(['releases.id as release_id', 'releases.upc', 'tracks.id as track_id', 'tracks.isrc'])
    .where(ownedBy('releases', workspaceId))
    .orderBy('releases.id')
    .limit(limit)
    .execute();
}
