import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { EVENT_NAMES, type EventKind } from '../../db/values.ts';
import { ApiError, errors } from '../../errors.ts';
import { type Html, html } from '../../lib/html.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import {
  type AttemptView,
  createWebhook,
  deliveryLog,
  eventKinds,
  listWebhooks,
  patchWebhook,
  RECOVERY_WINDOW_DAYS,
  recoverDeliveries,
  redeliver,
  rotateWebhookSecret,
  testWebhook,
  type WebhookCaller,
  type WebhookView,
} from '../webhooks/index.ts';
import { consoleRoute, formOf, formValues, type PageAnswer, pathId } from './console.pages.ts';
import { refusalMessage, shownOnce } from './console.render.ts';

/**
 * The Webhooks page: the label's webhooks, "Add webhook" (the secret shown once), enable and
 * disable, "Send test"; and each webhook's page: its delivery log with "Redeliver" per attempt,
 * its events to edit, "Rotate secret" (the new secret shown once) and "Recover" after an outage. The API's webhook services do the work,
 * on the label's live workspace, as a live key would.
 */

const LOG_SIZE = 50;

type IdRoute = { Params: { id: string } };

interface WebhookRequest {
  url: string;
  events: string[];
}

const EMPTY_REQUEST: WebhookRequest = { url: '', events: [] };

function isEventKind(name: string): name is EventKind {
  return (EVENT_NAMES as readonly string[]).includes(name);
}

function callerOf(label: LabelRow): WebhookCaller {
  return { label, workspace: workspaceOfLabel(label) };
}

/** An address's id as the API reads it; anything else is no webhook of this label. */
function webhookIdOf(request: FastifyRequest<IdRoute>): number {
  const id = pathId(request.params.id);
  if (id === 0) throw errors.notFound('Webhook');
  return id;
}

function csrfField(csrfToken: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrfToken}">`;
}

function actionForm(action: string, label: string, describedBy: string, csrfToken: string): Html {
  return html`<form method="post" action="${action}">${csrfField(csrfToken)}<button type="submit" aria-describedby="${describedBy}">${label}</button></form>`;
}

function webhookRow(webhook: WebhookView, csrfToken: string): Html {
  const base = `/console/webhooks/${webhook.id}`;
  const name = `webhook-${webhook.id}`;
  return html`<tr><td id="${name}"><a href="${base}">${webhook.url}</a></td>
<td>${webhook.events.join(', ')}</td>
<td>${webhook.active ? 'enabled' : 'disabled'}</td>
<td><time datetime="${webhook.created_at}">${webhook.created_at.slice(0, 10)}</time></td>
<td>${
    webhook.active
      ? html`${actionForm(`${base}/test`, 'Send test', name, csrfToken)}${actionForm(`${base}/disable`, 'Disable', name, csrfToken)}`
      : actionForm(`${base}/enable`, 'Enable', name, csrfToken)
  }</td></tr>`;
}

function webhooksTable(webhooks: readonly WebhookView[], csrfToken: string): Html {
  if (webhooks.length === 0) return html`<p>No webhooks yet.</p>`;
  return html`<table><thead><tr><th>Address</th><th>Events</th><th>Status</th><th>Created</th><th>Actions</th></tr></thead>
<tbody>${webhooks.map((webhook) => webhookRow(webhook, csrfToken))}</tbody></table>`;
}

function addForm(input: WebhookRequest, csrfToken: string, error?: ApiError): Html {
  const boxes = eventKinds().events.map(
    ({ event, description }) =>
      html`<label class="choice"><input type="checkbox" name="events" value="${event}"${input.events.includes(event) ? html` checked` : ''}> ${event} <span class="muted">${description}</span></label>`,
  );
  return html`<form class="stack" method="post" action="/console/webhooks">
${csrfField(csrfToken)}
${error ? refusalMessage(error) : ''}
<label>Address (https) <input name="url" type="url" required value="${input.url}"></label>
<fieldset><legend>Events</legend>${boxes}</fieldset>
<button type="submit">Add webhook</button>
</form>`;
}

function secretNotice(heading: string, secret: string): Html {
  return html`<section aria-labelledby="new-secret-heading"><h2 id="new-secret-heading">${heading}</h2>
${shownOnce('new-secret', 'Webhook secret', secret, 'Copy secret')}
<p>Deliveries are signed with this secret. Copy it now: it is not shown again.</p></section>`;
}

async function webhooksPage(
  ctx: AppContext,
  label: LabelRow,
  csrfToken: string,
  form: { input: WebhookRequest; error?: ApiError; secret?: string },
): Promise<Html> {
  const webhooks = await listWebhooks(ctx, callerOf(label));
  return html`${form.secret ? secretNotice('Webhook added', form.secret) : ''}
<section aria-labelledby="webhooks"><h2 id="webhooks">Webhooks</h2>${webhooksTable(webhooks, csrfToken)}</section>
<section aria-labelledby="add"><h2 id="add">Add a webhook</h2>${addForm(form.input, csrfToken, form.error)}</section>`;
}

async function addFromForm(
  ctx: AppContext,
  label: LabelRow,
  request: FastifyRequest,
  csrfToken: string,
): Promise<PageAnswer> {
  const input = { url: formOf(request).url ?? '', events: formValues(request, 'events') };
  try {
    const created = await createWebhook(ctx, callerOf(label), {
      url: input.url,
      events: eventsOf(input.events),
    });
    return webhooksPage(ctx, label, csrfToken, { input: EMPTY_REQUEST, secret: created.secret });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, content: await webhooksPage(ctx, label, csrfToken, { input, error }) };
  }
}

/** What a post to the webhook's page asks to show beside its forms. */
interface WebhookPageState {
  events?: { input: string[]; error: ApiError };
  secret?: string;
  redelivery?: { eventId: string; error: ApiError };
  recovery?: { since: string; error?: ApiError; queued?: number };
}

function attemptRow(attempt: AttemptView, redeliverable: boolean, id: number, csrfToken: string): Html {
  const name = `attempt-${attempt.delivery_id}-${attempt.attempt}`;
  const action =
    redeliverable && attempt.event_id !== null
      ? html`<form method="post" action="/console/webhooks/${id}/redeliver">${csrfField(csrfToken)}<input type="hidden" name="event_id" value="${attempt.event_id}"><button type="submit" aria-describedby="${name}">Redeliver</button></form>`
      : '';
  return html`<tr><td id="${name}"><time datetime="${attempt.created_at}">${attempt.created_at.replace('T', ' ').slice(0, 19)}</time> ${attempt.event}</td><td class="n">${attempt.event_id ?? '—'}</td><td class="n">${attempt.attempt}</td><td class="n">${attempt.status ?? '—'}</td><td class="n">${attempt.duration_ms} ms</td><td>${attempt.ok ? 'delivered' : (attempt.error ?? 'failed')}</td><td>${action}</td></tr>`;
}

function logTable(deliveries: readonly AttemptView[], webhook: WebhookView, csrfToken: string): Html {
  if (deliveries.length === 0) return html`<p>No deliveries yet.</p>`;
  const rows = deliveries.map((attempt) => attemptRow(attempt, webhook.active, webhook.id, csrfToken));
  return html`<table><thead><tr><th>When (UTC) and event</th><th class="n">Event id</th><th class="n">Attempt</th><th class="n">Status</th><th class="n">Duration</th><th>Result</th><th>Action</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function eventsForm(webhook: WebhookView, csrfToken: string, state?: WebhookPageState['events']): Html {
  const chosen: readonly string[] = state?.input ?? webhook.events;
  const boxes = eventKinds().events.map(
    ({ event }) =>
      html`<label class="choice"><input type="checkbox" name="events" value="${event}"${chosen.includes(event) ? html` checked` : ''}> ${event}</label>`,
  );
  return html`<form class="stack" method="post" action="/console/webhooks/${webhook.id}/events">
${csrfField(csrfToken)}
${state ? refusalMessage(state.error) : ''}
<fieldset><legend>Events sent to this address</legend>${boxes}</fieldset>
<button type="submit">Save events</button>
</form>`;
}

function rotateForm(webhook: WebhookView, csrfToken: string): Html {
  return html`<form method="post" action="/console/webhooks/${webhook.id}/rotate-secret">
${csrfField(csrfToken)}
<p id="rotate-hint" class="muted">A new secret signs every delivery from now on; the old one stops at once.</p>
<button type="submit" aria-describedby="rotate-hint">Rotate secret</button>
</form>`;
}

/**
 * Attempts do not carry an event's id from before the log recorded it, and a feed event may never
 * have gone to this webhook: this form takes any id the events feed gives.
 */
function redeliverForm(id: number, csrfToken: string, state?: WebhookPageState['redelivery']): Html {
  return html`<form class="stack" method="post" action="/console/webhooks/${id}/redeliver">
${csrfField(csrfToken)}
${state ? refusalMessage(state.error) : ''}
<label>Event id <input name="event_id" inputmode="numeric" pattern="[0-9]+" required value="${state?.eventId ?? ''}" aria-describedby="event-hint"></label>
<p id="event-hint" class="muted">The id of an event of the last 90 days, as the events feed numbers them. It is sent again, marked as a redelivery.</p>
<button type="submit">Redeliver</button>
</form>`;
}

function recoverForm(id: number, csrfToken: string, state?: WebhookPageState['recovery']): Html {
  const outcome =
    state?.error !== undefined
      ? refusalMessage(state.error)
      : state?.queued !== undefined
        ? html`<p role="status">${state.queued === 1 ? '1 delivery' : `${state.queued} deliveries`} queued.</p>`
        : '';
  return html`<form class="stack" method="post" action="/console/webhooks/${id}/recover">
${csrfField(csrfToken)}
${outcome}
<label>Since (UTC) <input type="datetime-local" name="since" step="1" required value="${state?.since ?? ''}" aria-describedby="recover-hint"></label>
<p id="recover-hint" class="muted">At most ${RECOVERY_WINDOW_DAYS} days back. Every event since then that this address should have had and never took with a 2xx is sent again, marked as a redelivery; events still being retried are left to their retries.</p>
<button type="submit">Recover</button>
</form>`;
}

/**
 * The form's `datetime-local` value has no zone; the page asks for UTC. Other text goes to the
 * service as it is, which refuses what is not a date-time.
 */
function sinceOf(text: string): string {
  const local = text.trim();
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(local) ? `${local}Z` : local;
}

async function webhookPage(
  ctx: AppContext,
  label: LabelRow,
  id: number,
  csrfToken: string,
  state: WebhookPageState = {},
): Promise<Html> {
  const caller = callerOf(label);
  const { deliveries, total } = await deliveryLog(ctx, caller, id, {
    page: 1,
    perPage: LOG_SIZE,
    limit: LOG_SIZE,
    offset: 0,
  });
  const webhook = (await listWebhooks(ctx, caller)).find((each) => each.id === id);
  if (!webhook) throw errors.notFound('Webhook');
  return html`${state.secret ? secretNotice('New secret', state.secret) : ''}
<p><code>${webhook.url}</code> · ${webhook.active ? 'enabled' : 'disabled'} · <a href="/console/webhooks">All webhooks</a></p>
<section aria-labelledby="log"><h2 id="log">Recent attempts (${Math.min(total, LOG_SIZE)} of ${total})</h2>
${logTable(deliveries, webhook, csrfToken)}</section>
<section aria-labelledby="events"><h2 id="events">Events</h2>${eventsForm(webhook, csrfToken, state.events)}</section>
<section aria-labelledby="secret"><h2 id="secret">Signing secret</h2>${rotateForm(webhook, csrfToken)}</section>
<section aria-labelledby="redeliver"><h2 id="redeliver">Send an event again</h2>${redeliverForm(id, csrfToken, state.redelivery)}</section>
<section aria-labelledby="recover"><h2 id="recover">Recover after an outage</h2>${recoverForm(id, csrfToken, state.recovery)}</section>`;
}

/** The posted event id as the API's schema reads it: a positive whole number. */
function eventIdOf(text: string): number {
  const digits = text.trim();
  const eventId = Number(digits);
  if (!/^\d+$/.test(digits) || !Number.isSafeInteger(eventId) || eventId <= 0)
    throw errors.invalid('event_id', 'The event id is a positive whole number');
  return eventId;
}

/** The ticked events, or the API's answer to an empty or unknown choice. */
function eventsOf(names: readonly string[]): EventKind[] {
  const events = names.filter(isEventKind);
  if (events.length === 0) throw errors.invalid('events', 'Choose at least one event');
  return events;
}

/**
 * Runs a form's action on the webhook's page: a refusal other than "no such webhook" is shown
 * beside the form that asked, on the page as it is now.
 */
async function onWebhookPage(
  ctx: AppContext,
  label: LabelRow,
  id: number,
  csrfToken: string,
  action: () => Promise<PageAnswer>,
  stateOnRefusal: (error: ApiError) => WebhookPageState,
): Promise<PageAnswer> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 404) throw error;
    return {
      status: error.status,
      content: await webhookPage(ctx, label, id, csrfToken, stateOnRefusal(error)),
    };
  }
}

export function webhooksPages(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/console/webhooks',
    consoleRoute(ctx, 'webhooks', 'Webhooks', ({ label }, _request, csrfToken) =>
      webhooksPage(ctx, label, csrfToken, { input: EMPTY_REQUEST }),
    ),
  );

  app.post(
    '/console/webhooks',
    { preHandler: app.csrfProtection },
    consoleRoute(ctx, 'webhooks', 'Webhooks', ({ label }, request, csrfToken) =>
      addFromForm(ctx, label, request, csrfToken),
    ),
  );

  app.get<IdRoute>(
    '/console/webhooks/:id',
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook', ({ label }, request, csrfToken) =>
      webhookPage(ctx, label, webhookIdOf(request), csrfToken),
    ),
  );

  app.post<IdRoute>(
    '/console/webhooks/:id/redeliver',
    { preHandler: app.csrfProtection },
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook', ({ label }, request, csrfToken) => {
      const id = webhookIdOf(request);
      const text = formOf(request).event_id ?? '';
      return onWebhookPage(
        ctx,
        label,
        id,
        csrfToken,
        async () => {
          await redeliver(ctx, callerOf(label), id, eventIdOf(text));
          return { redirect: `/console/webhooks/${id}` };
        },
        (error) => ({ redelivery: { eventId: text, error } }),
      );
    }),
  );

  // The count queued is the answer itself: asked again, a recovery queues nothing twice.
  app.post<IdRoute>(
    '/console/webhooks/:id/recover',
    { preHandler: app.csrfProtection },
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook', ({ label }, request, csrfToken) => {
      const id = webhookIdOf(request);
      const since = formOf(request).since ?? '';
      return onWebhookPage(
        ctx,
        label,
        id,
        csrfToken,
        async () => {
          const { queued } = await recoverDeliveries(ctx, callerOf(label), id, sinceOf(since));
          return webhookPage(ctx, label, id, csrfToken, { recovery: { since, queued } });
        },
        (error) => ({ recovery: { since, error } }),
      );
    }),
  );

  app.post<IdRoute>(
    '/console/webhooks/:id/events',
    { preHandler: app.csrfProtection },
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook', ({ label }, request, csrfToken) => {
      const id = webhookIdOf(request);
      const input = formValues(request, 'events');
      return onWebhookPage(
        ctx,
        label,
        id,
        csrfToken,
        async () => {
          await patchWebhook(ctx, callerOf(label), id, { events: eventsOf(input) });
          return { redirect: `/console/webhooks/${id}` };
        },
        (error) => ({ events: { input, error } }),
      );
    }),
  );

  // The new secret is the answer itself, not a redirect: it is shown this once.
  app.post<IdRoute>(
    '/console/webhooks/:id/rotate-secret',
    { preHandler: app.csrfProtection },
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook', async ({ label }, request, csrfToken) => {
      const id = webhookIdOf(request);
      const rotated = await rotateWebhookSecret(ctx, callerOf(label), id);
      return webhookPage(ctx, label, id, csrfToken, { secret: rotated.secret });
    }),
  );

  for (const [action, active] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post<IdRoute>(
      `/console/webhooks/:id/${action}`,
      { preHandler: app.csrfProtection },
      consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhooks', async ({ label }, request) => {
        await patchWebhook(ctx, callerOf(label), webhookIdOf(request), { active });
        return { redirect: '/console/webhooks' };
      }),
    );
  }

  app.post<IdRoute>(
    '/console/webhooks/:id/test',
    { preHandler: app.csrfProtection },
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhooks', async ({ label }, request) => {
      const id = webhookIdOf(request);
      await testWebhook(ctx, callerOf(label), id);
      return { redirect: `/console/webhooks/${id}` };
    }),
  );
}
