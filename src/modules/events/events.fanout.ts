import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import type { WebhooksTable } from '../../db/schema.ts';
import type { Workspace } from '../../db/scope.ts';
import type { EventKind } from '../../db/values.ts';
import { enqueue, type NewJob } from '../../jobs/queue.ts';
import { PLANS } from '../plans/index.ts';
import { activeWebhooksOfLabel, labelOfWebhook, queuedPayloads } from './events.store.ts';

/*
 * An event's deliveries are queued by the transaction that publishes it, so finding the webhooks
 * that subscribe and queueing their delivery jobs belong to the events; webhooks/ manages the
 * subscriptions and sends what is queued here.
 */

export const DELIVERY_JOB = 'webhook.delivery';

/** The payload of a delivery job. Its attempts are the job's runs and share `delivery_id`. */
export interface DeliveryJob {
  delivery_id: string;
  webhook_id: number;
  event_id: number;
  /** The attempt this run makes, from 1; absent on the first. A crash does not use one up. */
  attempt?: number;
  /** Asked for with POST /webhooks/{id}/redeliver: the body says so. */
  redelivery?: true;
}

export function subscribedEvents(row: Pick<Selectable<WebhooksTable>, 'events'>): EventKind[] {
  return readJson(row.events);
}

/** A webhook an event goes to, with its label: a label's deliveries share a part of the worker's slots. */
export interface Subscriber {
  webhookId: number;
  labelId: number;
}

/**
 * Who an event goes to: the webhooks that subscribe to it (the default), none (a test goes to one
 * webhook, queued by its caller), or every active webhook of the label but one, whatever its
 * events (a warning about that one, which must not be missed for want of a subscription).
 */
export type Recipients = 'subscribers' | 'none' | { allBut: number };

/**
 * The active webhooks of the workspace's label that the event goes to; none while the label's plan
 * has no webhooks (after a move to Start). A sandbox shares its label's.
 */
export async function recipientsOf(
  trx: Db,
  workspace: Workspace,
  event: EventKind,
  recipients: Recipients = 'subscribers',
): Promise<Subscriber[]> {
  if (recipients === 'none') return [];
  const webhooks = (await activeWebhooksOfLabel(trx, workspace.labelId)).filter(
    (webhook) => PLANS[webhook.plan].features.webhooks,
  );
  const chosen =
    recipients === 'subscribers'
      ? webhooks.filter((webhook) => subscribedEvents(webhook).includes(event))
      : webhooks.filter((webhook) => webhook.id !== recipients.allBut);
  return chosen.map((webhook) => ({ webhookId: webhook.id, labelId: workspace.labelId }));
}

function deliveryJob(to: Subscriber, eventId: number, at: Date, options: { redelivery?: true } = {}) {
  return jobFor(to, at, { ...payloadOf(to, options), event_id: eventId });
}

/** A delivery's payload but for its event's id. */
function payloadOf(to: Subscriber, options: { redelivery?: true } = {}): Omit<DeliveryJob, 'event_id'> {
  return { delivery_id: randomUUID(), webhook_id: to.webhookId, ...options };
}

function jobFor<P>(to: Subscriber, at: Date, payload: P) {
  return { kind: DELIVERY_JOB, payload, runAt: at, group: `label:${to.labelId}` };
}

/**
 * The delivery jobs of an event that is being inserted, one per webhook: their payloads lack the
 * event's id, which the insert adds (`insertEventInSequence`).
 */
export function deliveriesOfNewEvent(subscribers: readonly Subscriber[], at: Date): NewJob[] {
  return subscribers.map((subscriber) => jobFor(subscriber, at, payloadOf(subscriber)));
}

/** Queues one delivery of an event to one webhook (a test, a redelivery); returns its delivery id. */
export async function queueDelivery(
  trx: Db,
  webhookId: number,
  eventId: number,
  at: Date,
  options: { redelivery?: true } = {},
): Promise<string> {
  const labelId = await labelOfWebhook(trx, webhookId);
  if (labelId === undefined) throw new Error(`no webhook ${webhookId} to deliver to`);
  const [deliveryId] = await queueDeliveries(trx, { webhookId, labelId }, [eventId], at, options);
  if (deliveryId === undefined) throw new Error(`no delivery queued to webhook ${webhookId}`);
  return deliveryId;
}

/** Queues a delivery of each event to one webhook, in the order given; returns their delivery ids. */
export async function queueDeliveries(
  trx: Db,
  to: Subscriber,
  eventIds: readonly number[],
  at: Date,
  options: { redelivery?: true } = {},
): Promise<string[]> {
  const jobs = eventIds.map((eventId) => deliveryJob(to, eventId, at, options));
  for (let i = 0; i < jobs.length; i += JOBS_PER_INSERT) {
    await enqueue(trx, jobs.slice(i, i + JOBS_PER_INSERT), at);
  }
  return jobs.map((job) => job.payload.delivery_id);
}

/** Rows per insert: five values a row stays well inside SQLite's 32,766 bound parameters. */
const JOBS_PER_INSERT = 1000;

/** The events with a delivery to the webhook still queued or in flight (a first send, a retry, a redelivery). */
export async function eventsPendingFor(trx: Db, to: Subscriber): Promise<Set<number>> {
  const payloads = await queuedPayloads(trx, DELIVERY_JOB, `label:${to.labelId}`);
  return new Set(
    payloads
      .map((payload) => readJson(payload) as DeliveryJob)
      .filter((job) => job.webhook_id === to.webhookId)
      .map((job) => job.event_id),
  );
}
