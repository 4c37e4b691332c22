import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EventsTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export type EventRow = Selectable<EventsTable>;

export async function insertEvent(db: Db, row: Insertable<EventsTable>): Promise<EventRow> {
  return db.insertInto('events').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Keyset page: the workspace's events after `after`, oldest first, `limit` of them at most. */
export async function eventsAfter(
  db: Db,
  workspaceId: number,
  after: number,
  types: readonly string[] | null,
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
