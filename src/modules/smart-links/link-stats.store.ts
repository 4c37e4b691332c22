import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Dialect } from '../../db/portable.ts';
import { ownedBy } from '../../db/scope.ts';
import type { Dimension } from '../../db/values.ts';
import {
  CAPPED_DIMENSIONS,
  type CountRows,
  type LinkCountRow,
  type LinkRef,
  labelRows,
  type StoredValue,
} from './link-tally.ts';

export interface BreakdownCount {
  dimension: Dimension;
  value: string;
  count: number;
}

/** What one or more visits on one UTC day add to a link's counters. */
export interface CounterDelta {
  day: string;
  views: number;
  clicks: number;
  /** The target whose button was clicked (its own click count grows by `clicks`). */
  targetId: number | null;
  breakdown: readonly BreakdownCount[];
}

/**
 * Adds to every counter of one link and to its label's rollup, all or none, as they are (no cap on
 * distinct values): for seeding a link's history (the links bench). Pages count through
 * link-counts.ts.
 */
export async function addToCounters(db: Db, link: LinkRef, delta: CounterDelta): Promise<void> {
  const day = {
    link_id: link.id,
    label_id: link.label_id,
    day: delta.day,
    views: delta.views,
    clicks: delta.clicks,
  };
  const breakdowns = delta.breakdown.map((entry) => ({
    link_id: link.id,
    label_id: link.label_id,
    day: delta.day,
    ...entry,
  }));
  const write = async (trx: Db) => {
    await addToLinkTotals(trx, [
      { id: link.id, label_id: link.label_id, views: delta.views, clicks: delta.clicks },
    ]);
    await addToCounterRows(trx, {
      targets:
        delta.targetId === null
          ? []
          : [{ id: delta.targetId, link_id: link.id, label_id: link.label_id, clicks: delta.clicks }],
      days: [day],
      breakdowns,
      ...labelRows([day], breakdowns),
    });
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}

/** Rows per insert: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters at six a row. */
const ROWS_PER_STATEMENT = 2_000;

async function inChunks<T>(rows: readonly T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await write(rows.slice(start, start + ROWS_PER_STATEMENT));
  }
}

/** `case id when 7 then 3 when 9 then 1 … else 0 end`: one row's share of a many-row update. */
function amountById(rows: readonly { id: number }[], amount: (row: { id: number }) => number) {
  const whens = rows.map((row) => sql`when ${row.id} then cast(${amount(row)} as integer)`);
  return sql<number>`case id ${sql.join(whens, sql` `)} else 0 end`;
}

/**
 * Holds the counters of these labels (ids ascending) until the transaction ends, so that flushes of
 * one label from several processes apply the cap on distinct values one after another. The label
 * rows are key-shared first, as every transaction that writes a label's rows takes them. SQLite has
 * one writer at a time: the flush's first statement is a write, which holds it.
 */
export async function holdLabelCounters(
  db: Db,
  dialect: Dialect,
  labelIds: readonly number[],
): Promise<void> {
  if (dialect !== 'postgres' || labelIds.length === 0) return;
  await db
    .selectFrom('labels')
    .select('id')
    .where('id', 'in', [...labelIds])
    .orderBy('id')
    .forKeyShare()
    .execute();
  await sql`
    select pg_advisory_xact_lock(hashtextextended('link-counts:' || id || ':' || current_schema(), 0))
    from (select id from unnest(${[...labelIds]}::integer[]) as id order by id) as ordered
  `.execute(db);
}

/**
 * Adds to the links' own totals in one statement and answers which links are still there: counts
 * of a link removed since (a sandbox reset) have nowhere to go. The ids come from the links' own
 * rows, read by their addresses, so no workspace narrows them.
 */
export async function addToLinkTotals(db: Db, links: readonly LinkCountRow[]): Promise<number[]> {
  if (links.length === 0) return [];
  const byId = new Map(links.map((link) => [link.id, link]));
  const rows = await db
    .updateTable('smart_links')
    .set((eb) => ({
      views: eb(
        'views',
        '+',
        amountById(links, (row) => byId.get(row.id)?.views ?? 0),
      ),
      clicks: eb(
        'clicks',
        '+',
        amountById(links, (row) => byId.get(row.id)?.clicks ?? 0),
      ),
    }))
    .where('id', 'in', [...byId.keys()])
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The capped dimensions' values the links already have on these days. */
export async function storedLinkValues(
  db: Db,
  linkIds: readonly number[],
  days: readonly string[],
): Promise<StoredValue[]> {
  if (linkIds.length === 0) return [];
  return db
    .selectFrom('smart_link_breakdowns')
    .select(['link_id as owner', 'day', 'dimension', 'value'])
    .where('link_id', 'in', [...linkIds])
    .where('dimension', 'in', [...CAPPED_DIMENSIONS])
    .where('day', 'in', [...days])
    .execute();
}

/** The capped dimensions' values the labels' rollups already have on these days. */
export async function storedLabelValues(
  db: Db,
  labelIds: readonly number[],
  days: readonly string[],
): Promise<StoredValue[]> {
  if (labelIds.length === 0) return [];
  return db
    .selectFrom('label_traffic_breakdowns')
    .select(['label_id as owner', 'day', 'dimension', 'value'])
    .where('label_id', 'in', [...labelIds])
    .where('dimension', 'in', [...CAPPED_DIMENSIONS])
    .where('day', 'in', [...days])
    .execute();
}

/**
 * Adds to the targets' clicks, the links' days and breakdowns and the labels' rollups: one
 * statement per table (an insert … on conflict for all links), more only past ROWS_PER_STATEMENT.
 */
export async function addToCounterRows(db: Db, rows: Omit<CountRows, 'links'>): Promise<void> {
  if (rows.targets.length > 0) {
    const byId = new Map(rows.targets.map((target) => [target.id, target]));
    await db
      .updateTable('smart_link_targets')
      .set((eb) => ({
        clicks: eb(
          'clicks',
          '+',
          amountById(rows.targets, (row) => byId.get(row.id)?.clicks ?? 0),
        ),
      }))
      .where('id', 'in', [...byId.keys()])
      .execute();
  }
  await inChunks(rows.days, (chunk) =>
    db
      .insertInto('smart_link_days')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['link_id', 'day']).doUpdateSet((eb) => ({
          views: eb('smart_link_days.views', '+', eb.ref('excluded.views')),
          clicks: eb('smart_link_days.clicks', '+', eb.ref('excluded.clicks')),
        })),
      )
      .execute(),
  );
  await inChunks(rows.breakdowns, (chunk) =>
    db
      .insertInto('smart_link_breakdowns')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['link_id', 'dimension', 'day', 'value']).doUpdateSet((eb) => ({
          count: eb('smart_link_breakdowns.count', '+', eb.ref('excluded.count')),
        })),
      )
      .execute(),
  );
  await inChunks(rows.labelDays, (chunk) =>
    db
      .insertInto('label_traffic_days')
      .values(chunk.map((row) => ({ ...row, presaves: 0 })))
      .onConflict((oc) =>
        oc.columns(['label_id', 'day']).doUpdateSet((eb) => ({
          views: eb('label_traffic_days.views', '+', eb.ref('excluded.views')),
          clicks: eb('label_traffic_days.clicks', '+', eb.ref('excluded.clicks')),
        })),
      )
      .execute(),
  );
  await inChunks(rows.labelBreakdowns, (chunk) =>
    db
      .insertInto('label_traffic_breakdowns')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['label_id', 'dimension', 'day', 'value']).doUpdateSet((eb) => ({
          count: eb('label_traffic_breakdowns.count', '+', eb.ref('excluded.count')),
        })),
      )
      .execute(),
  );
}

/**
 * Records the tokens of batches of counts taken from Redis and answers those recorded now: a token
 * already there was applied before (by a taker that died before it could delete its batch).
 */
export async function claimBatches(
  db: Db,
  tokens: readonly string[],
  appliedAt: string,
): Promise<Set<string>> {
  if (tokens.length === 0) return new Set();
  const rows = await db
    .insertInto('link_count_batches')
    .values([...tokens].sort().map((token) => ({ token, applied_at: appliedAt })))
    .onConflict((oc) => oc.column('token').doNothing())
    .returning('token')
    .execute();
  return new Set(rows.map((row) => row.token));
}

/** Forgets the tokens of batches applied before `appliedBefore`: no batch is recovered that late. */
export async function forgetBatchesBefore(db: Db, appliedBefore: string): Promise<void> {
  await db.deleteFrom('link_count_batches').where('applied_at', '<', appliedBefore).execute();
}

/** The random name of this database's counting keys in Redis (migration 0017). */
export async function countingNamespace(db: Db): Promise<string> {
  const row = await db.selectFrom('link_count_namespace').select('namespace').executeTakeFirstOrThrow();
  return row.namespace;
}

export interface DayCount {
  day: string;
  views: number;
  clicks: number;
}

const toDayCounts = (rows: { day: string; views: unknown; clicks: unknown }[]): DayCount[] =>
  rows.map((row) => ({ day: row.day, views: Number(row.views), clicks: Number(row.clicks) }));

const toBreakdown = (rows: { dimension: Dimension; value: string; count: unknown }[]): BreakdownCount[] =>
  rows.map((row) => ({ dimension: row.dimension, value: row.value, count: Number(row.count) }));

export async function daysOfLink(db: Db, workspaceId: number, linkId: number): Promise<DayCount[]> {
  const rows = await db
    .selectFrom('smart_link_days')
    .select(['day', 'views', 'clicks'])
    .where(ownedBy('smart_link_days', workspaceId))
    .where('link_id', '=', linkId)
    .orderBy('day')
    .execute();
  return toDayCounts(rows);
}

export async function breakdownOfLink(
  db: Db,
  workspaceId: number,
  linkId: number,
): Promise<BreakdownCount[]> {
  const rows = await db
    .selectFrom('smart_link_breakdowns')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number>('count').as('count')])
    .where(ownedBy('smart_link_breakdowns', workspaceId))
    .where('link_id', '=', linkId)
    .groupBy(['dimension', 'value'])
    .execute();
  return toBreakdown(rows);
}
