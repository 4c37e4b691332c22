import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';
import type { Dimension } from '../../db/values.ts';
import type { BreakdownCount } from './link-stats.store.ts';

/**
 * A label's smart-link traffic summed over its links, one row per UTC day (`label_traffic_days`)
 * and per day, dimension and value (`label_traffic_breakdowns`): label analytics read these, so
 * their cost follows the period, not the number of links.
 */

/** One pre-save sign-up on `day`, in the sign-up's transaction. */
export async function addPresaveToLabelDay(db: Db, labelId: number, day: string): Promise<void> {
  await db
    .insertInto('label_traffic_days')
    .values({ label_id: labelId, day, views: 0, clicks: 0, presaves: 1 })
    .onConflict((oc) =>
      oc.columns(['label_id', 'day']).doUpdateSet((eb) => ({
        presaves: eb('label_traffic_days.presaves', '+', 1),
      })),
    )
    .execute();
}

/** A sandbox reset removes its links: their traffic goes from the label's totals with them. */
export async function forgetLabelTraffic(db: Db, labelId: number): Promise<void> {
  await db
    .deleteFrom('label_traffic_breakdowns')
    .where(ownedBy('label_traffic_breakdowns', labelId))
    .execute();
  await db.deleteFrom('label_traffic_days').where(ownedBy('label_traffic_days', labelId)).execute();
}

export interface LabelDay {
  day: string;
  views: number;
  clicks: number;
  presaves: number;
}

/** The workspace's views, clicks and pre-saves per day from `fromDay` on: a row per day at most. */
export async function daysOfLabel(db: Db, workspaceId: number, fromDay: string): Promise<LabelDay[]> {
  const rows = await db
    .selectFrom('label_traffic_days')
    .select(['day', 'views', 'clicks', 'presaves'])
    .where(ownedBy('label_traffic_days', workspaceId))
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute();
  return rows.map((row) => ({
    day: row.day,
    views: Number(row.views),
    clicks: Number(row.clicks),
    presaves: Number(row.presaves),
  }));
}

/** The workspace's counts by value of each of `dimensions` from `fromDay` on. */
export async function breakdownOfLabel(
  db: Db,
  workspaceId: number,
  dimensions: readonly Dimension[],
  fromDay: string,
): Promise<BreakdownCount[]> {
  const rows = await db
    .selectFrom('label_traffic_breakdowns')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number>('count').as('count')])
    .where(ownedBy('label_traffic_breakdowns', workspaceId))
    .where('dimension', 'in', [...dimensions])
    .where('day', '>=', fromDay)
    .groupBy(['dimension', 'value'])
    .execute();
  return rows.map((row) => ({ dimension: row.dimension, value: row.value, count: Number(row.count) }));
}

export interface LinkPeriodCount {
  id: number;
  title: string;
  views: number;
  clicks: number;
}

/**
 * The workspace's links with the most views from `fromDay` on, among those with a view or a click
 * then. A link that started collecting within the period counted all of its traffic in it, so its
 * own totals answer (one row); only a link older than the period sums its days within it. A label
 * rollup cannot rank links, and a rollup per link and period would be another table to keep.
 */
export async function topLinksOfLabel(
  db: Db,
  workspaceId: number,
  fromDay: string,
  limit: number,
): Promise<LinkPeriodCount[]> {
  const periodStart = `${fromDay}T00:00:00.000Z`;
  const youngLinks = db
    .selectFrom('smart_links')
    .select(['id', 'title', 'views', 'clicks'])
    .where(ownedBy('smart_links', workspaceId))
    .where('collecting_since', '>=', periodStart)
    .where((eb) => eb.or([eb('views', '>', 0), eb('clicks', '>', 0)]));
  const olderLinks = db
    .selectFrom('smart_link_days')
    .innerJoin('smart_links', 'smart_links.id', 'smart_link_days.link_id')
    .select([
      'smart_links.id',
      'smart_links.title',
      (eb) => eb.fn.sum<number>('smart_link_days.views').as('views'),
      (eb) => eb.fn.sum<number>('smart_link_days.clicks').as('clicks'),
    ])
    .where(ownedBy('smart_link_days', workspaceId))
    .where(ownedBy('smart_links', workspaceId))
    .where('smart_links.collecting_since', '<', periodStart)
    .where('smart_link_days.day', '>=', fromDay)
    .groupBy(['smart_links.id', 'smart_links.title']);
  const rows = await db
    .selectFrom(youngLinks.unionAll(olderLinks).as('period'))
    .selectAll()
    .orderBy(sql`views`, 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    views: Number(row.views),
    clicks: Number(row.clicks),
  }));
}
