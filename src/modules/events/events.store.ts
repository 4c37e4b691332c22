import { type Insertable, type Selectable, sql } from 'kysely';
import { shareLockLabel } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import { dialectOf } from '../../db/portable.ts';
import { executeNamed } from '../../db/prepared.ts';
import type { EventsTable, JobsTable, WebhooksTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { PlanKey } from '../../db/values.ts';
import { enqueue, jobRows, type NewJob } from '../../jobs/queue.ts';

export type EventRow = Selectable<EventsTable>;

/**
 * Inserts an event and queues its deliveries (jobs whose payloads get the event's `event_id`),
 * holding its workspace's event sequence until the transaction ends. On PostgreSQL two
 * transactions could otherwise take ids 7 and 8 and commit 8 first: a feed reader at `after=8`
 * would never see 7. Publishers to one workspace therefore take ids one transaction at a time (a
 * feed is a workspace's, so other workspaces' publishers need not wait), under an advisory lock:
 * waiters queue for it and are woken one at a time, where waiters on a row's lock are all woken by
 * each commit and all but one go back to sleep. The lock, the event and its deliveries are one
 * statement, so the lock is held for that statement and the commit only. SQLite already has one
 * writer at a time, and takes ids in the order of their commits.
 */
export async function insertEventInSequence(
  db: Db,
  row: Insertable<EventsTable>,
  deliveries: readonly NewJob[],
): Promise<EventRow> {
  const dialect = dialectOf(db);
  const createdAt = new Date(row.created_at);
  if (dialect !== 'postgres') {
    const event = await db.insertInto('events').values(row).returningAll().executeTakeFirstOrThrow();
    const withId = deliveries.map((job) => ({
      ...job,
      payload: { ...(job.payload as object), event_id: event.id },
    }));
    await enqueue(db, withId, createdAt);
    return event;
  }
  // The event row's foreign key would lock the label row after the sequence; a transaction that
  // holds the label row (lockLabel) and then publishes would wait on us as we wait on it.
  await shareLockLabel(db, dialect, row.label_id);
  const jobs = jobRows(deliveries, createdAt);
  const column = <K extends keyof (typeof jobs)[number]>(key: K) => jobs.map((job) => job[key]);
  const statement = sql<EventRow>`
    with sequence as (
      select pg_advisory_xact_lock(hashtextextended(${`events:${row.label_id}:`} || current_schema(), 0))
    ), event as (
      insert into events (label_id, event, data, created_at)
      select ${row.label_id}::integer, ${row.event}::text, ${row.data}::text, ${row.created_at}::text from sequence
      returning *
    ), deliveries as (
      insert into jobs (kind, payload, run_at, created_at, group_key)
      select job.kind, (job.payload::jsonb || jsonb_build_object('event_id', event.id))::text,
        job.run_at, job.created_at, job.group_key
      from event, unnest(
        ${column('kind')}::text[], ${column('payload')}::text[], ${column('run_at')}::text[],
        ${column('created_at')}::text[], ${column('group_key')}::text[]
      ) as job(kind, payload, run_at, created_at, group_key)
    )
    select * from event`;
  // Its text is the same for every event (the deliveries are arrays): parsed once per connection.
  const [event] = await executeNamed(db, { compile: () => statement.compile(db) });
  if (!event) throw new Error('the event insert returned no row');
  return event;
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

/** The payloads of a kind's queued jobs in one group (a label's deliveries), as stored. */
export async function queuedPayloads(
  db: Db,
  kind: string,
  group: string,
): Promise<Array<JobsTable['payload']>> {
  const rows = await db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', kind)
    .where('group_key', '=', group)
    .execute();
  return rows.map((row) => row.payload);
}
