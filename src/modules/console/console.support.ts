import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { ApiError } from '../../errors.ts';
import { pageOf } from '../../http/pagination.ts';
import { type Html, html } from '../../lib/html.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import {
  listWorkspaceRequests,
  MAX_MESSAGE_LENGTH,
  type SupportRequestView,
  sendSupportMessage,
} from '../support/index.ts';
import { consoleRoute, type Form, formOf, type PageAnswer, refusalOr } from './console.pages.ts';
import { refusalMessage } from './console.render.ts';

/**
 * The Support page: the label's requests with support's replies (`labeldesk support reply`), as
 * `GET /support/requests` lists them, and a new message, sent as `POST /support` sends it.
 */

/** The latest requests, the API's first page. */
const LATEST = pageOf({});

interface SupportView {
  csrfToken: string;
  form?: Form;
  refusal?: ApiError;
}

async function supportContent(ctx: AppContext, label: LabelRow, view: SupportView): Promise<Html> {
  const { requests, total } = await listWorkspaceRequests(ctx, workspaceOfLabel(label), LATEST);
  const more =
    total > requests.length ? html`<p class="muted">The latest ${requests.length} of ${total}.</p>` : '';
  return html`${messageForm(view)}
<section aria-labelledby="requests"><h2 id="requests">Requests</h2>
${requests.length === 0 ? html`<p class="muted">No requests yet.</p>` : requestTable(requests)}${more}</section>`;
}

function requestTable(requests: readonly SupportRequestView[]): Html {
  const rows = requests.map(
    (request) =>
      html`<tr><td>${request.id}</td><td>${request.type}</td><td>${request.status}</td><td>${request.created_at}</td><td class="text">${request.message ?? ''}</td><td class="text">${request.reply ?? html`<span class="muted">No reply yet</span>`}</td></tr>`,
  );
  return html`<table><thead><tr><th>Number</th><th>Type</th><th>Status</th><th>Sent</th><th>Message</th><th>Reply</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function messageForm({ csrfToken, form = {}, refusal }: SupportView): Html {
  return html`<section aria-labelledby="new-message"><h2 id="new-message">New message</h2>
<form class="stack" method="post" action="/console/support">
<input type="hidden" name="_csrf" value="${csrfToken}">
${refusal ? refusalMessage(refusal) : ''}
<label>Message <textarea name="message" rows="6" maxlength="${MAX_MESSAGE_LENGTH}" required>${form.message ?? ''}</textarea></label>
<button type="submit">Send message</button>
</form></section>`;
}

export function supportPages(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/console/support',
    consoleRoute(ctx, 'support', 'Support', async (who, _request, csrfToken) =>
      supportContent(ctx, who.label, { csrfToken }),
    ),
  );

  // The message shows in the page's list; a reload does not send it again.
  app.post(
    '/console/support',
    { preHandler: app.csrfProtection },
    consoleRoute(ctx, 'support', 'Support', async (who, request, csrfToken): Promise<PageAnswer> => {
      const form = formOf(request);
      const outcome = await refusalOr(() =>
        sendSupportMessage(ctx, workspaceOfLabel(who.label), { message: form.message ?? '' }),
      );
      if (!(outcome instanceof ApiError)) return { redirect: '/console/support' };
      const content = await supportContent(ctx, who.label, { csrfToken, form, refusal: outcome });
      return { status: outcome.status, content };
    }),
  );
}
