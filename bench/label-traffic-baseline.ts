// The label analytics' reads as they were before the label rollups (issue 19): every link's day and
// breakdown rows of the period, summed per request. Kept only so that bench:label-traffic can time
// them against the rollup reads on the same data in the same run.
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { ownedBy } from '../src/db/scope.ts';
import type { Dimension } from '../src/db/values.ts';

export async function daysOfLabelPerLink(db: Db, workspaceId: number, fromDay: string) {
  return db
    .selectFrom('smart_link_days')
    .select([
      'day',
      (eb) => eb.fn.sum<number>('views').as('views'),
      (eb) => eb.fn.sum<number>('clicks').as('clicks'),
    ])
    .where(ownedBy('smart_link_days', workspaceId))
    .where('day', '>=', fromDay)
    .groupBy('day')
    .orderBy('day')
    .execute();
}

export async function breakdownOfLabelPerLink(
  db: Db,
  workspaceId: number,
  dimensions: readonly Dimension[],
  fromDay: string,
) {
  return db
    .selectFrom('smart_link_breakdowns')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number>('count').as('count')])
    .where(ownedBy('smart_link_breakdowns', workspaceId))
    .where('dimension', 'in', [...dimensions])
    .where('day', '>=', fromDay)
    .groupBy(['dimension', 'value'])
    .execute();
}

export async function topLinksOfLabelPerLink(db: Db, workspaceId: number, fromDay: string, limit: number) {
  return db
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
    .where('smart_link_days.day', '>=', fromDay)
    .groupBy(['smart_links.id', 'smart_links.title'])
    .orderBy(sql`sum(smart_link_days.views)`, 'desc')
    .orderBy('smart_links.id')
    .limit(limit)
    .execute();
}

export async function presavesSincePerSignUp(db: Db, workspaceId: number, fromIso: string) {
  return db
    .selectFrom('smart_link_presaves')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('smart_link_presaves', workspaceId))
    .where('created_at', '>=', fromIso)
    .executeTakeFirst();
}
