import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { ApiError } from '../../errors.ts';
import { type Html, html } from '../../lib/html.ts';
import { createKey, type KeyView, listKeys, revokeKey } from '../keys/index.ts';
import { isScope, type Scope, scopeOutsidePlan, termsOf } from '../plans/index.ts';
import { consoleRoute, formOf, formValues, type PageAnswer } from './console.pages.ts';
import { refusalMessage, shownOnce } from './console.render.ts';

/**
 * The API keys page: the label's keys as `labeldesk key list` shows them (revoked ones marked),
 * "Create key" with `createKey` as `labeldesk key create` calls it, and "Revoke" per active key.
 */

interface KeyRequest {
  scopes: string[];
  allowIps: string;
  sandbox: boolean;
}

const EMPTY_REQUEST: KeyRequest = { scopes: [], allowIps: '', sandbox: false };

function keyRequestOf(request: FastifyRequest): KeyRequest {
  const form = formOf(request);
  return {
    scopes: formValues(request, 'scopes'),
    allowIps: form.allow_ips ?? '',
    sandbox: form.sandbox === 'on',
  };
}

/** The allow-list field holds addresses separated by commas or line breaks, as `--allow-ip` takes them. */
function allowListOf(text: string): string[] {
  return text.split(/[,\r\n]+/);
}

/**
 * The form offers the scopes the plan lets a key use; a scope outside them gets the API's own
 * answer for it. Unknown names are left to `createKey`, which refuses them as the CLI sees.
 */
function checkScopesInPlan(label: LabelRow, scopes: readonly string[]): void {
  const planScopes: readonly Scope[] = termsOf(label).plan.scopes;
  const outside = scopes.filter(isScope).find((scope) => !planScopes.includes(scope));
  if (outside) throw scopeOutsidePlan(outside);
}

function dateOf(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;
}

function minuteOf(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;
}

function revokeForm(key: KeyView, csrfToken: string): Html {
  return html`<form method="post" action="/console/keys/${encodeURIComponent(key.prefix)}/revoke">
<input type="hidden" name="_csrf" value="${csrfToken}"><button type="submit" aria-describedby="key-${key.prefix}">Revoke</button></form>`;
}

function keyRow(key: KeyView, csrfToken: string): Html {
  return html`<tr><td id="key-${key.prefix}"><code>${key.prefix}</code></td>
<td>${key.scopes.join(', ')}</td>
<td>${key.sandbox ? 'sandbox' : 'live'}</td>
<td>${key.allow_ips ? key.allow_ips.join(', ') : html`<span class="muted">any address</span>`}</td>
<td>${dateOf(key.created_at)}</td>
<td>${key.last_used_at ? minuteOf(key.last_used_at) : html`<span class="muted">never</span>`}</td>
<td>${key.revoked_at ? html`revoked ${dateOf(key.revoked_at)}` : 'active'}</td>
<td>${key.revoked_at ? '' : revokeForm(key, csrfToken)}</td></tr>`;
}

function keysTable(keys: readonly KeyView[], csrfToken: string): Html {
  if (keys.length === 0) return html`<p>No keys yet.</p>`;
  return html`<table><thead><tr><th>Prefix</th><th>Scopes</th><th>Kind</th><th>Allowed addresses</th><th>Created</th><th>Last used (UTC)</th><th>Status</th><th>Action</th></tr></thead>
<tbody>${keys.map((key) => keyRow(key, csrfToken))}</tbody></table>`;
}

function createForm(offered: readonly Scope[], input: KeyRequest, csrfToken: string, error?: ApiError): Html {
  const boxes = offered.map(
    (scope) =>
      html`<label class="choice"><input type="checkbox" name="scopes" value="${scope}"${input.scopes.includes(scope) ? html` checked` : ''}> ${scope}</label>`,
  );
  return html`<form class="stack" method="post" action="/console/keys">
<input type="hidden" name="_csrf" value="${csrfToken}">
${error ? refusalMessage(error) : ''}
<fieldset><legend>Scopes</legend>${boxes}</fieldset>
<label>Allowed addresses (optional) <textarea name="allow_ips" rows="3" aria-describedby="allow-hint">${input.allowIps}</textarea></label>
<p id="allow-hint" class="muted">IPv4 or IPv6 addresses and CIDR ranges, separated by commas or line breaks. Empty: any address.</p>
<label class="choice"><input type="checkbox" name="sandbox" value="on"${input.sandbox ? html` checked` : ''}> Sandbox key (svc_test_…): works on the label's sandbox, never on live data</label>
<button type="submit">Create key</button>
</form>`;
}

function newKeyNotice(key: string): Html {
  return html`<section aria-labelledby="created"><h2 id="created">Key created</h2>
${shownOnce('new-key', 'New API key', key, 'Copy key')}
<p>Copy it now and keep it somewhere safe: it is not shown again. Only its prefix stays visible here.</p></section>`;
}

async function keysPage(
  ctx: AppContext,
  label: LabelRow,
  csrfToken: string,
  form: { input: KeyRequest; error?: ApiError; newKey?: string },
): Promise<Html> {
  const keys = await listKeys(ctx, label.id);
  return html`${form.newKey ? newKeyNotice(form.newKey) : ''}
<section aria-labelledby="keys"><h2 id="keys">Keys</h2>${keysTable(keys, csrfToken)}</section>
<section aria-labelledby="create"><h2 id="create">Create a key</h2>
${createForm(termsOf(label).plan.scopes, form.input, csrfToken, form.error)}</section>`;
}

async function createFromForm(
  ctx: AppContext,
  label: LabelRow,
  request: FastifyRequest,
  csrfToken: string,
): Promise<PageAnswer> {
  const input = keyRequestOf(request);
  try {
    checkScopesInPlan(label, input.scopes);
    const issued = await createKey(ctx, {
      labelId: label.id,
      scopes: input.scopes,
      sandbox: input.sandbox,
      allowIps: allowListOf(input.allowIps),
    });
    return keysPage(ctx, label, csrfToken, { input: EMPTY_REQUEST, newKey: issued.key });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, content: await keysPage(ctx, label, csrfToken, { input, error }) };
  }
}

export function keysPages(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/console/keys',
    consoleRoute(ctx, 'keys', 'API keys', ({ label }, _request, csrfToken) =>
      keysPage(ctx, label, csrfToken, { input: EMPTY_REQUEST }),
    ),
  );

  app.post(
    '/console/keys',
    { preHandler: app.csrfProtection },
    consoleRoute(ctx, 'keys', 'API keys', ({ label }, request, csrfToken) =>
      createFromForm(ctx, label, request, csrfToken),
    ),
  );

  app.post<{ Params: { prefix: string } }>(
    '/console/keys/:prefix/revoke',
    { preHandler: app.csrfProtection },
    consoleRoute<{ Params: { prefix: string } }>(ctx, 'keys', 'API keys', async ({ label }, request) => {
      await revokeKey(ctx, request.params.prefix, { labelId: label.id });
      return { redirect: '/console/keys' };
    }),
  );
}
