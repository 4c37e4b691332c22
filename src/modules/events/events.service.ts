import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import type { Workspace } from '../../db/scope.ts';
import { EVENT_NAMES, type EventKind } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { isEventKind } from './events.catalog.ts';
import { deliveriesOfNewEvent, type Recipients, recipientsOf } from './events.fanout.ts';
import { deleteEventsBefore, type EventRow, eventsAfter, insertEventInSequence } from './events.store.ts';

/** Events are kept this long, then pruned. */
export const EVENT_RETENTION_MS = 90 * 24 * 3_600_000;

export interface EventView {
  id: number;
  event: EventKind;
  created_at: string;
  data: Record<string, unknown>;
}

/**
 * The one way an event comes to be. Call it with the transaction of the change that causes the
 * event, so the event exists if and only if the change committed. A sandbox workspace's events
 * carry `data.sandbox: true`. Its deliveries to the webhooks that subscribe to it are queued in the
 * same transaction: to those that subscribe to it, unless `recipients` says otherwise (see
 * `Recipients`). Publish last in a transaction: the event sequence stays locked from here until
 * the commit.
 */
export async function publish(
  trx: Db,
  workspace: Workspace,
  event: EventKind,
  data: Record<string, unknown>,
  at: string,
  options: { recipients?: Recipients } = {},
): Promise<EventView> {
  const body = workspace.sandbox ? { ...data, sandbox: true } : data;
  // Read before taking the lock, which is then held for as few statements as possible.
  const subscribers = await recipientsOf(trx, workspace, event, options.recipients);
  const row = await insertEventInSequence(
    trx,
    { label_id: workspace.id, event, data: JSON.stringify(body), created_at: at },
    deliveriesOfNewEvent(subscribers, new Date(at)),
  );
  return presentEvent(row);
}

export function presentEvent(row: EventRow): EventView {
  return {
    id: row.id,
    event: row.event,
    created_at: row.created_at,
    data: readJson(row.data),
  };
}

/** `types` as sent: comma-separated event names; an unknown name is 400. */
export function parseEventTypes(text: string | undefined): EventKind[] | null {
  if (text === undefined || text.trim() === '') return null;
  const names = [
    ...new Set(
      text
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.find((name) => !isEventKind(name));
  if (unknown !== undefined) {
    throw errors.invalid('types', `${unknown} is not an event; the events are ${EVENT_NAMES.join(', ')}`);
  }
  return names.filter(isEventKind);
}

export async function eventFeed(
  db: Db,
  workspace: Workspace,
  query: { after: number; types: EventKind[] | null; limit: number },
): Promise<{ events: EventView[]; next_after: number; has_more: boolean }> {
  // One more than asked tells whether there are more, without a count.
  const rows = await eventsAfter(db, workspace.id, query.after, query.types, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(presentEvent),
    next_after: page.at(-1)?.id ?? query.after,
    has_more: rows.length > query.limit,
  };
}

/** Drops events older than the retention; returns how many went. */
export async function pruneExpiredEvents(db: Db, clock: Clock): Promise<number> {
  return deleteEventsBefore(db, new Date(clock.now().getTime() - EVENT_RETENTION_MS).toISOString());
}
