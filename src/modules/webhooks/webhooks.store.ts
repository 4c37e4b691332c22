import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database, EventsTable, WebhookAttemptsTable, WebhooksTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
type EventRow = Selectable<EventsTable>;

/** Webhooks fail this many times in a row before they are switched off. */
const FAILURES_BEFORE_DISABLING = 20;

/** At this many failures in a row, the label's other webhooks are warned (`webhook.failing`). */
export const FAILURES_BEFORE_WARNING = 15;

export async function webhooksOfLabel(db: Db, labelId: number): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where(ownedBy('webhooks', labelId)).orderBy('id').execute();
}

export async function findWebhook(db: Db, labelId: number, id: number): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where(ownedBy('webhooks', labelId))
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface DeliveryTarget {
  /** The workspace of the event: a sandbox's events are logged under the sandbox. */
  workspace_id: number;
  url: string;
  secret: string;
  active: number;
  event: EventRow['event'];
  data: EventRow['data'];
  event_created_at: string;
}

/** A delivery to read the target of: a webhook and an event. */
export interface TargetKey {
  webhookId: number;
  eventId: number;
}

/**
 * What each delivery needs, in two queries for all of them (the webhooks, the events): none for a
 * delivery whose webhook or event is gone.
 */
export async function deliveryTargets(
  db: Db,
  keys: readonly TargetKey[],
): Promise<Array<DeliveryTarget | undefined>> {
  if (keys.length === 0) return [];
  const [webhooks, events] = await Promise.all([
    db
      .selectFrom('webhooks')
      .select(['id', 'url', 'secret', 'active'])
      .where('id', 'in', [...new Set(keys.map((key) => key.webhookId))])
      .execute(),
    db
      .selectFrom('events')
      .select(['id', 'label_id', 'event', 'data', 'created_at'])
      .where('id', 'in', [...new Set(keys.map((key) => key.eventId))])
      .execute(),
  ]);
  const webhookById = new Map(webhooks.map((row) => [row.id, row]));
  const eventById = new Map(events.map((row) => [row.id, row]));
  return keys.map(({ webhookId, eventId }) => {
    const webhook = webhookById.get(webhookId);
    const event = eventById.get(eventId);
    if (!webhook || !event) return undefined;
    return {
      workspace_id: event.label_id,
      url: webhook.url,
      secret: webhook.secret,
      active: webhook.active,
      event: event.event,
      data: event.data,
      event_created_at: event.created_at,
    };
  });
}

export async function insertWebhook(db: Db, row: Insertable<WebhooksTable>): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateWebhook(
  db: Db,
  labelId: number,
  id: number,
  patch: Updateable<WebhooksTable>,
): Promise<WebhookRow | undefined> {
  return db
    .updateTable('webhooks')
    .set(patch)
    .where(ownedBy('webhooks', labelId))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteWebhook(db: Db, labelId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('webhooks')
    .where(ownedBy('webhooks', labelId))
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Logs attempts, each under the workspace of the event it carried (read with its delivery target). */
export async function insertAttempts(
  db: Db,
  rows: readonly Insertable<WebhookAttemptsTable>[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_attempts').values(rows).execute();
}

/** A success ends the webhooks' runs of failures. */
export async function resetFailures(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhooks')
    .set({ consecutive_failures: 0 })
    .where('id', 'in', ids)
    .where('consecutive_failures', '>', 0)
    .execute();
}

/** A webhook's run of failures after one more. */
export interface FailureRun {
  webhookId: number;
  labelId: number;
  url: string;
  consecutiveFailures: number;
}

/** One more failure in a row; the webhook is switched off when the row reaches the limit. */
export async function countFailure(db: Db, id: number): Promise<FailureRun | undefined> {
  const row = await db
    .updateTable('webhooks')
    .set((eb) => ({
      consecutive_failures: eb('consecutive_failures', '+', 1),
      active: eb
        .case()
        .when('consecutive_failures', '>=', FAILURES_BEFORE_DISABLING - 1)
        .then(0)
        .else(eb.ref('active'))
        .end(),
    }))
    .where('id', '=', id)
    .returning(['id', 'label_id', 'url', 'consecutive_failures'])
    .executeTakeFirst();
  return (
    row && {
      webhookId: row.id,
      labelId: row.label_id,
      url: row.url,
      consecutiveFailures: row.consecutive_failures,
    }
  );
}

/** An event a webhook may be sent again by a recovery. */
export type RecoverableEvent = Pick<EventRow, 'id' | 'event'> & { data: EventRow['data'] | null };

/**
 * The events of `workspaces` (the webhook's label and its sandbox) since `since`, oldest first, that the webhook never
 * took with a 2xx and that went to it or would have: those of the kinds it subscribes to, the tests
 * it was sent, and every `webhook.failing` (which goes to all of a label's webhooks but the failing
 * one: the caller leaves out those about this webhook).
 */
export async function eventsNotTaken(
  db: Db,
  webhookId: number,
  workspaces: readonly number[],
  kinds: readonly EventRow['event'][],
  since: string,
): Promise<RecoverableEvent[]> {
  // A test goes to the webhook it was sent to, and a warning to all but one, whatever they subscribe to.
  const subscribed = kinds.filter((kind) => kind !== 'webhook.test' && kind !== 'webhook.failing');
  const attemptsOf = (eb: ExpressionBuilder<Database, 'events'>) =>
    eb
      .selectFrom('webhook_attempts')
      .select('webhook_attempts.id')
      .where('webhook_attempts.webhook_id', '=', webhookId)
      .whereRef('webhook_attempts.event_id', '=', 'events.id');
  return db
    .selectFrom('events')
    .select((eb) => [
      'events.id',
      'events.event',
      // Only a warning's data is read (whom it is about); the rest stays in the table.
      eb
        .case()
        .when('events.event', '=', 'webhook.failing')
        .then(eb.ref('events.data'))
        .else(null)
        .end()
        .as('data'),
    ])
    .where((eb) => eb.or(workspaces.map((workspace) => ownedBy('events', workspace))))
    .where('events.created_at', '>=', since)
    .where((eb) =>
      eb.or([
        ...(subscribed.length > 0 ? [eb('events.event', 'in', subscribed)] : []),
        eb.and([eb('events.event', '=', 'webhook.test'), eb.exists(attemptsOf(eb))]),
        eb('events.event', '=', 'webhook.failing'),
      ]),
    )
    .where((eb) => eb.not(eb.exists(attemptsOf(eb).where('webhook_attempts.ok', '=', 1))))
    .orderBy('events.id')
    .execute();
}

/** A webhook's attempts, newest first: all of them, or only those carrying one workspace's events. */
export async function attemptsPage(
  db: Db,
  webhookId: number,
  workspaceId: number | null,
  limit: number,
  offset: number,
): Promise<{ rows: AttemptRow[]; total: number }> {
  const ofWebhook = db
    .selectFrom('webhook_attempts')
    .where('webhook_id', '=', webhookId)
    .$if(workspaceId !== null, (query) => query.where('workspace_id', '=', workspaceId));
  const [rows, count] = await Promise.all([
    ofWebhook.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    ofWebhook.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Attempts since `since` across every label, and how many of them failed. */
export async function attemptCountsSince(db: Db, since: string): Promise<{ total: number; failed: number }> {
  const row = await db
    .selectFrom('webhook_attempts')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number>(eb.case().when('ok', '=', 0).then(1).else(0).end()).as('failed'),
    ])
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), failed: Number(row.failed ?? 0) };
}

export async function deleteAttemptsBefore(db: Db, cutoff: string): Promise<number> {
  const result = await db.deleteFrom('webhook_attempts').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
