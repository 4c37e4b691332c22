import type { Insertable, Selectable } from 'kysely';
import { shareLockLabel } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import { dialectOf } from '../../db/portable.ts';
import type { EventsTable, WebhooksTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { PlanKey } from '../../db/values.ts';

export type EventRow = Selectable<EventsTable>;

/**
 * Holds the event sequence until the transaction ends. On PostgreSQL two transactions could
 * otherwise take ids 7 and 8 and commit 8 first: a feed reader at `after=8` would never see 7.
 * Publishers therefore take ids one transaction at a time (SQLite already has one writer at a time).
 */
export async function lockEventSequence(db: Db, workspaceId: number): Promise<void> {
  // The event row's foreign key would lock the label row after the sequence; a transaction that
  // holds the label row (lockLabel) and then publishes would wait on us as we wait on it.
  await shareLockLabel(db, dialectOf(db), workspaceId);
  await db
    .updateTable('service_marks')
    .set((eb) => ({ at: eb.ref('at') }))
    .where('name', '=', 'events.sequence')
    .execute();
}

export async function insertEvent(db: Db, row: Insertable<EventsTable>): Promise<EventRow> {
  return db.insertInto('events').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Keyset page: the workspace's events after `after`, oldest first, `limit` of them at most. */
export async function eventsAfter(
  db: Db,
  workspaceId: number,
  after: number,
  types: readonly EventRow['event'][] | null,
  limit: number,
): Promise<EventRow[]> {
  let query = db
    .selectFrom('events')
    .selectAll()
    .where(ownedBy('events', workspaceId))
    .where('id', '>', after);
  if (types !== null) query = query.where('event', 'in', types);
  return query.orderBy('id').limit(limit).execute();
}

export async function deleteEventsBefore(db: Db, cutoff: string): Promise<number> {
  const result = await db.deleteFrom('events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findEvent(db: Db, workspaceId: number, id: number): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where(ownedBy('events', workspaceId))
    .where('id', '=', id)
    .executeTakeFirst();
}

/** An event by id alone: for the delivery worker, which acts for every label. */
export async function eventById(db: Db, id: number): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The label's active webhooks with the label's plan key: one query, none at all without webhooks. */
export async function activeWebhooksOfLabel(
  db: Db,
  labelId: number,
): Promise<Array<Pick<Selectable<WebhooksTable>, 'id' | 'events'> & { plan: PlanKey }>> {
  return db
    .selectFrom('webhooks')
    .innerJoin('labels', 'labels.id', 'webhooks.label_id')
    .select(['webhooks.id', 'webhooks.events', 'labels.plan'])
    .where(ownedBy('webhooks', labelId))
    .where('webhooks.active', '=', 1)
    .execute();
}

/** The label a webhook belongs to (a delivery's fair share is its label's). */
export async function labelOfWebhook(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('webhooks').select('label_id').where('id', '=', id).executeTakeFirst();
  return row?.label_id;
}
