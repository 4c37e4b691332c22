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
  redeliver,
  testWebhook,
  type WebhookCaller,
  type WebhookView,
} from '../webhooks/index.ts';
import { consoleRoute, formOf, formValues, type PageAnswer, pathId } from './console.pages.ts';
import { refusalMessage } from './console.render.ts';

/**
 * The Webhooks page: the label's webhooks, "Add webhook" (the secret shown once), enable and
 * disable, "Send test", and each webhook's delivery log with "Redeliver". The API's webhook services do the work,
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

function secretNotice(secret: string): Html {
  return html`<section aria-labelledby="added"><h2 id="added">Webhook added</h2>
<label for="new-secret">Webhook secret</label>
<input id="new-secret" readonly value="${secret}" size="60" autocomplete="off" spellcheck="false">
<p>Deliveries are signed with this secret. Copy it now: it is not shown again.</p></section>`;
}

async function webhooksPage(
  ctx: AppContext,
  label: LabelRow,
  csrfToken: string,
  form: { input: WebhookRequest; error?: ApiError; secret?: string },
): Promise<Html> {
  const webhooks = await listWebhooks(ctx, callerOf(label));
  return html`${form.secret ? secretNotice(form.secret) : ''}
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
    const events: EventKind[] = input.events.filter(isEventKind);
    if (events.length === 0) throw errors.invalid('events', 'Choose at least one event');
    const created = await createWebhook(ctx, callerOf(label), { url: input.url, events });
    return webhooksPage(ctx, label, csrfToken, { input: EMPTY_REQUEST, secret: created.secret });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, content: await webhooksPage(ctx, label, csrfToken, { input, error }) };
  }
}

function attemptRow(attempt: AttemptView): Html {
  return html`<tr><td><time datetime="${attempt.created_at}">${attempt.created_at.replace('T', ' ').slice(0, 19)}</time></td><td>${attempt.event}</td><td class="n">${attempt.attempt}</td><td class="n">${attempt.status ?? '—'}</td><td class="n">${attempt.duration_ms} ms</td><td>${attempt.ok ? 'delivered' : (attempt.error ?? 'failed')}</td></tr>`;
}

/**
 * Attempts do not record their event's id, so "Redeliver" asks for it as the API does: the id the
 * events feed gives the event.
 */
function redeliverForm(id: number, csrfToken: string, input: { eventId: string; error?: ApiError }): Html {
  return html`<form class="stack" method="post" action="/console/webhooks/${id}/redeliver">
${csrfField(csrfToken)}
${input.error ? refusalMessage(input.error) : ''}
<label>Event id <input name="event_id" inputmode="numeric" pattern="[0-9]+" required value="${input.eventId}" aria-describedby="event-hint"></label>
<p id="event-hint" class="muted">The id of an event of the last 90 days, as the events feed numbers them. It is sent again, marked as a redelivery.</p>
<button type="submit">Redeliver</button>
</form>`;
}

async function logPage(
  ctx: AppContext,
  label: LabelRow,
  id: number,
  csrfToken: string,
  redelivery: { eventId: string; error?: ApiError } = { eventId: '' },
): Promise<Html> {
  const caller = callerOf(label);
  const { deliveries, total } = await deliveryLog(ctx, caller, id, {
    page: 1,
    perPage: LOG_SIZE,
    limit: LOG_SIZE,
    offset: 0,
  });
  const webhook = (await listWebhooks(ctx, caller)).find((each) => each.id === id);
  return html`<p>${webhook?.url ?? ''} · <a href="/console/webhooks">All webhooks</a></p>
<section aria-labelledby="log"><h2 id="log">Recent attempts (${Math.min(total, LOG_SIZE)} of ${total})</h2>
${
  deliveries.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<table><thead><tr><th>When (UTC)</th><th>Event</th><th class="n">Attempt</th><th class="n">Status</th><th class="n">Duration</th><th>Result</th></tr></thead><tbody>${deliveries.map(attemptRow)}</tbody></table>`
}</section>
<section aria-labelledby="redeliver"><h2 id="redeliver">Send an event again</h2>${redeliverForm(id, csrfToken, redelivery)}</section>`;
}

/** The posted event id as the API's schema reads it: a positive whole number. */
function eventIdOf(text: string): number {
  const digits = text.trim();
  const eventId = Number(digits);
  if (!/^\d+$/.test(digits) || !Number.isSafeInteger(eventId) || eventId <= 0)
    throw errors.invalid('event_id', 'The event id is a positive whole number');
  return eventId;
}

async function redeliverFromForm(
  ctx: AppContext,
  label: LabelRow,
  request: FastifyRequest<IdRoute>,
  csrfToken: string,
): Promise<PageAnswer> {
  const id = webhookIdOf(request);
  const text = formOf(request).event_id ?? '';
  try {
    await redeliver(ctx, callerOf(label), id, eventIdOf(text));
    return { redirect: `/console/webhooks/${id}` };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 404) throw error;
    return {
      status: error.status,
      content: await logPage(ctx, label, id, csrfToken, { eventId: text, error }),
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
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook deliveries', ({ label }, request, csrfToken) =>
      logPage(ctx, label, webhookIdOf(request), csrfToken),
    ),
  );

  app.post<IdRoute>(
    '/console/webhooks/:id/redeliver',
    { preHandler: app.csrfProtection },
    consoleRoute<IdRoute>(ctx, 'webhooks', 'Webhook deliveries', ({ label }, request, csrfToken) =>
      redeliverFromForm(ctx, label, request, csrfToken),
    ),
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
