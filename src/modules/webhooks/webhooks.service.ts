import type { AppContext } from '../../context.ts';
import { lockLabel } from '../../core/labels.ts';
import { readJson } from '../../db/json-column.ts';
import { EVENT_NAMES, type EventKind } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import {
  EVENT_KINDS,
  eventsPendingFor,
  findEvent,
  publish,
  queueDeliveries,
  queueDelivery,
  subscribedEvents,
} from '../events/index.ts';
import type { Authenticated } from '../keys/index.ts';
import { findSandboxOf } from '../labels/index.ts';
import { enforceLimit, requireFeature } from '../plans/index.ts';
import { AddressRefused, addressPolicy, assertDeliverableUrl } from './webhooks.address.ts';
import { encryptSecret, newWebhookSecret } from './webhooks.secrets.ts';
import {
  type AttemptRow,
  attemptsPage,
  deleteWebhook,
  eventsNotTaken,
  findWebhook,
  insertWebhook,
  type RecoverableEvent,
  updateWebhook,
  type WebhookRow,
  webhooksOfLabel,
} from './webhooks.store.ts';

/** Who acts on webhooks: a key's caller, or a console member's label in its live workspace. */
export type WebhookCaller = Pick<Authenticated, 'label' | 'workspace'>;

export interface WebhookView {
  id: number;
  url: string;
  events: EventKind[];
  created_at: string;
  active: boolean;
  consecutive_failures: number;
}

export function presentWebhook(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: subscribedEvents(row),
    created_at: row.created_at,
    active: row.active === 1,
    consecutive_failures: row.consecutive_failures,
  };
}

export type AttemptView = ReturnType<typeof presentAttempt>;

function presentAttempt(row: AttemptRow) {
  return {
    delivery_id: row.delivery_id,
    event: row.event,
    event_id: row.event_id,
    attempt: row.attempt,
    status: row.status,
    ok: row.ok === 1,
    duration_ms: row.duration_ms,
    error: row.error,
    created_at: row.created_at,
  };
}

/** Webhooks belong to the label; its sandbox shares them (test events carry `data.sandbox`). */
const ownerOf = (auth: WebhookCaller) => auth.workspace.labelId;

/**
 * A sandbox key may read the shared webhooks and send them tests, never change where live events
 * go: that is 403 `live_key_required`.
 */
function requireLiveKey(auth: WebhookCaller, action: string): void {
  if (auth.workspace.sandbox) throw errors.liveKeyRequired(action);
}

async function loadWebhook(ctx: AppContext, auth: WebhookCaller, id: number): Promise<WebhookRow> {
  requireFeature(auth.label, 'webhooks');
  const row = await findWebhook(ctx.db, ownerOf(auth), id);
  if (!row) throw errors.notFound('Webhook');
  return row;
}

/** Refuses an address no delivery may go to: 400 `invalid` on `url` with the reason. */
async function checkedUrl(ctx: AppContext, url: string): Promise<string> {
  try {
    return (await assertDeliverableUrl(url.trim(), addressPolicy(ctx.config), ctx.resolveHost)).href;
  } catch (error) {
    if (error instanceof AddressRefused)
      throw errors.invalid('url', `This address cannot receive webhooks: ${error.message}`);
    throw error;
  }
}

export async function listWebhooks(ctx: AppContext, auth: WebhookCaller): Promise<WebhookView[]> {
  requireFeature(auth.label, 'webhooks');
  return (await webhooksOfLabel(ctx.db, ownerOf(auth))).map(presentWebhook);
}

export async function createWebhook(
  ctx: AppContext,
  auth: WebhookCaller,
  body: { url: string; events: EventKind[] },
): Promise<WebhookView & { secret: string }> {
  requireLiveKey(auth, 'create a webhook');
  requireFeature(auth.label, 'webhooks');
  const url = await checkedUrl(ctx, body.url);
  const secret = newWebhookSecret();
  const at = ctx.clock.now().toISOString();
  const row = await ctx.db.transaction().execute(async (trx) => {
    await lockLabel(trx, ctx.dialect, ownerOf(auth));
    await enforceLimit(trx, auth.label, 'webhooks', ownerOf(auth));
    return insertWebhook(trx, {
      label_id: ownerOf(auth),
      url,
      events: JSON.stringify(body.events),
      secret: encryptSecret(ctx.config, secret),
      active: 1,
      consecutive_failures: 0,
      created_at: at,
      updated_at: at,
    });
  });
  return { ...presentWebhook(row), secret };
}

export async function patchWebhook(
  ctx: AppContext,
  auth: WebhookCaller,
  id: number,
  body: { url?: string; events?: EventKind[]; active?: boolean },
): Promise<WebhookView> {
  requireLiveKey(auth, 'change a webhook');
  await loadWebhook(ctx, auth, id);
  const url = body.url === undefined ? undefined : await checkedUrl(ctx, body.url);
  const row = await updateWebhook(ctx.db, ownerOf(auth), id, {
    ...(url !== undefined && { url }),
    ...(body.events !== undefined && { events: JSON.stringify(body.events) }),
    ...(body.active === true && { active: 1, consecutive_failures: 0 }),
    ...(body.active === false && { active: 0 }),
    updated_at: ctx.clock.now().toISOString(),
  });
  if (!row) throw errors.notFound('Webhook');
  return presentWebhook(row);
}

export async function removeWebhook(ctx: AppContext, auth: WebhookCaller, id: number): Promise<void> {
  requireLiveKey(auth, 'delete a webhook');
  await loadWebhook(ctx, auth, id);
  if (!(await deleteWebhook(ctx.db, ownerOf(auth), id))) throw errors.notFound('Webhook');
}

export async function rotateWebhookSecret(
  ctx: AppContext,
  auth: WebhookCaller,
  id: number,
): Promise<WebhookView & { secret: string }> {
  requireLiveKey(auth, "rotate a webhook's secret");
  await loadWebhook(ctx, auth, id);
  const secret = newWebhookSecret();
  const row = await updateWebhook(ctx.db, ownerOf(auth), id, {
    secret: encryptSecret(ctx.config, secret),
    updated_at: ctx.clock.now().toISOString(),
  });
  if (!row) throw errors.notFound('Webhook');
  return { ...presentWebhook(row), secret };
}

function assertActive(row: WebhookRow): void {
  if (row.active === 0) {
    throw errors.conflict('This webhook is disabled; re-enable it with PATCH {"active": true} first', {
      webhook_id: row.id,
    });
  }
}

/** Publishes a `webhook.test` event and sends it to this webhook alone. */
export async function testWebhook(
  ctx: AppContext,
  auth: WebhookCaller,
  id: number,
): Promise<{ delivery_id: string; event_id: number }> {
  assertActive(await loadWebhook(ctx, auth, id));
  const at = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const event = await publish(
      trx,
      auth.workspace,
      'webhook.test',
      { message: 'A test delivery from Labeldesk' },
      at.toISOString(),
      { recipients: 'none' },
    );
    return { delivery_id: await queueDelivery(trx, id, event.id, at), event_id: event.id };
  });
}

/** Sends an event of the caller's workspace again, marked `redelivery: true`, under a new delivery id. */
export async function redeliver(
  ctx: AppContext,
  auth: WebhookCaller,
  id: number,
  eventId: number,
): Promise<{ delivery_id: string; event_id: number }> {
  requireLiveKey(auth, 'redeliver an event');
  assertActive(await loadWebhook(ctx, auth, id));
  const event = await findEvent(ctx.db, auth.workspace.id, eventId);
  if (!event)
    throw errors.invalid('event_id', 'No event with this id in this workspace (events are kept 90 days)');
  const at = ctx.clock.now();
  const deliveryId = await queueDelivery(ctx.db, id, event.id, at, { redelivery: true });
  return { delivery_id: deliveryId, event_id: event.id };
}

/** How far back a recovery may reach. */
export const RECOVERY_WINDOW_DAYS = 14;

/**
 * Where a recovery starts: `since`, which must lie within the last 14 days, or the webhook's
 * creation if that came later (a recovery makes up for an outage; it is no backfill).
 */
function recoveryStart(now: Date, since: string, webhookCreatedAt: string): string {
  const at = new Date(since).getTime();
  // The date-time format admits a leap second (23:59:60), which Date cannot represent.
  if (Number.isNaN(at)) throw errors.invalid('since', 'since must be a date-time');
  if (at > now.getTime()) throw errors.invalid('since', 'since is in the future');
  const earliest = now.getTime() - RECOVERY_WINDOW_DAYS * 86_400_000;
  if (at < earliest) {
    throw errors.invalid(
      'since',
      `since may be at most ${RECOVERY_WINDOW_DAYS} days back, not before ${new Date(earliest).toISOString()}`,
    );
  }
  return new Date(Math.max(at, new Date(webhookCreatedAt).getTime())).toISOString();
}

/**
 * Sends the webhook again, marked `redelivery: true`, every event since `since` that went to it or
 * would have and that it never took with a 2xx, oldest first; events with a delivery to it still
 * queued or in flight are left to that delivery. Recoveries of one label run one at a time, so a
 * second one sees the first's deliveries as queued.
 */
export async function recoverDeliveries(
  ctx: AppContext,
  auth: WebhookCaller,
  id: number,
  since: string,
): Promise<{ queued: number }> {
  requireLiveKey(auth, 'recover deliveries');
  const webhook = await loadWebhook(ctx, auth, id);
  assertActive(webhook);
  const at = ctx.clock.now();
  const start = recoveryStart(at, since, webhook.created_at);
  return ctx.db.transaction().execute(async (trx) => {
    await lockLabel(trx, ctx.dialect, ownerOf(auth));
    // The label's webhooks carry its sandbox's events too.
    const sandbox = await findSandboxOf(trx, webhook.label_id);
    const workspaces = sandbox ? [webhook.label_id, sandbox.id] : [webhook.label_id];
    const to = { webhookId: webhook.id, labelId: webhook.label_id };
    const [missed, pending] = await Promise.all([
      eventsNotTaken(trx, webhook.id, workspaces, subscribedEvents(webhook), start),
      eventsPendingFor(trx, to),
    ]);
    const due = missed.filter((event) => !pending.has(event.id) && !isWarningAbout(event, webhook.id));
    const queued = await queueDeliveries(
      trx,
      to,
      due.map((event) => event.id),
      at,
      { redelivery: true },
    );
    return { queued: queued.length };
  });
}

/** A `webhook.failing` about this webhook went to the label's others, never to it. */
function isWarningAbout(event: RecoverableEvent, webhookId: number): boolean {
  if (event.event !== 'webhook.failing' || event.data === null) return false;
  const data = readJson(event.data) as { webhook?: { id?: unknown } };
  return data.webhook?.id === webhookId;
}

/** The webhook's log; a sandbox key reads only the attempts that carried its sandbox's events. */
export async function deliveryLog(ctx: AppContext, auth: WebhookCaller, id: number, page: PageRequest) {
  await loadWebhook(ctx, auth, id);
  const workspace = auth.workspace.sandbox ? auth.workspace.id : null;
  const { rows, total } = await attemptsPage(ctx.db, id, workspace, page.limit, page.offset);
  return { deliveries: rows.map(presentAttempt), total };
}

export function eventKinds(): { events: { event: EventKind; description: string }[] } {
  return { events: EVENT_NAMES.map((event) => ({ event, description: EVENT_KINDS[event] })) };
}
