import type { Db } from '../../db/database.ts';
import { type Write, writeTogether } from '../../db/portable.ts';
import { ownedBy } from '../../db/scope.ts';
import type { Dimension } from '../../db/values.ts';
import { labelTrafficWrites } from './label-traffic.store.ts';

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
 * Adds to every counter of the link and to its label's day, all or none: on a smart-link page this is the one write of a
 * view or a click, one statement on PostgreSQL (`writeTogether`), in the caller's transaction if
 * `db` is one.
 */
export async function addToCounters(
  db: Db,
  link: { id: number; label_id: number },
  delta: CounterDelta,
): Promise<void> {
  await writeTogether(db, (trx) => [
    ...counterWrites(trx, link, delta),
    ...labelTrafficWrites(trx, link.label_id, delta),
  ]);
}

function counterWrites(db: Db, link: { id: number; label_id: number }, delta: CounterDelta): Write[] {
  const writes: Write[] = [
    db
      .updateTable('smart_links')
      .set((eb) => ({ views: eb('views', '+', delta.views), clicks: eb('clicks', '+', delta.clicks) }))
      .where(ownedBy('smart_links', link.label_id))
      .where('id', '=', link.id),
  ];
  if (delta.targetId !== null) {
    writes.push(
      db
        .updateTable('smart_link_targets')
        .set((eb) => ({ clicks: eb('clicks', '+', delta.clicks) }))
        .where(ownedBy('smart_link_targets', link.label_id))
        .where('id', '=', delta.targetId),
    );
  }
  writes.push(
    db
      .insertInto('smart_link_days')
      .values({
        link_id: link.id,
        label_id: link.label_id,
        day: delta.day,
        views: delta.views,
        clicks: delta.clicks,
      })
      .onConflict((oc) =>
        oc.columns(['link_id', 'day']).doUpdateSet((eb) => ({
          views: eb('smart_link_days.views', '+', eb.ref('excluded.views')),
          clicks: eb('smart_link_days.clicks', '+', eb.ref('excluded.clicks')),
        })),
      ),
  );
  if (delta.breakdown.length === 0) return writes;
  writes.push(
    db
      .insertInto('smart_link_breakdowns')
      .values(
        delta.breakdown.map((entry) => ({
          link_id: link.id,
          label_id: link.label_id,
          day: delta.day,
          dimension: entry.dimension,
          value: entry.value,
          count: entry.count,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['link_id', 'dimension', 'day', 'value']).doUpdateSet((eb) => ({
          count: eb('smart_link_breakdowns.count', '+', eb.ref('excluded.count')),
        })),
      ),
  );
  return writes;
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
