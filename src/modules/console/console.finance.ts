import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { ApiError } from '../../errors.ts';
import { pageOf } from '../../http/pagination.ts';
import { type Html, html } from '../../lib/html.ts';
import {
  createWithdrawal,
  type FinanceReader,
  financeSummary,
  payoutPage,
  withdrawalPage,
} from '../finance/index.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { termsOf } from '../plans/index.ts';
import { roleAllows } from '../team/index.ts';
import {
  consoleRoute,
  type Form,
  formOf,
  type PageAnswer,
  refusalOr,
  type SignedIn,
} from './console.pages.ts';
import { refusalMessage } from './console.render.ts';

/**
 * The Finance page: the balance, payouts and withdrawals as `GET /finance/...` shows them, and
 * "Request withdrawal", which weighs the request as `labeldesk finance withdrawal create` does.
 */

/** Rows of each list the page shows: the latest ones, the API's first page. */
const LATEST = pageOf({});

/** The label's own figures: the console is never a sandbox's. */
function readerOf(label: LabelRow): FinanceReader {
  return { workspace: workspaceOfLabel(label), terms: termsOf(label) };
}

const usd = (amount: number) => amount.toFixed(2);

interface FinanceView {
  csrfToken: string;
  mayWithdraw: boolean;
  form?: Form;
  refusal?: ApiError;
}

async function financeContent(ctx: AppContext, label: LabelRow, view: FinanceView): Promise<Html> {
  const reader = readerOf(label);
  const [summary, payouts, withdrawals] = await Promise.all([
    financeSummary(ctx, reader),
    payoutPage(ctx, reader, LATEST),
    withdrawalPage(ctx, reader, LATEST),
  ]);
  const { balance, label_terms: terms } = summary;
  return html`${summary.note ? html`<p class="muted">${summary.note}</p>` : ''}
<section aria-labelledby="balance"><h2 id="balance">Balance</h2>
<table><thead><tr><th>Available (USD)</th><th>Earned (USD)</th><th>Withdrawn (USD)</th></tr></thead>
<tbody><tr><td>${usd(balance.available)}</td><td>${usd(balance.earned)}</td><td>${usd(balance.withdrawn)}</td></tr></tbody></table>
<p class="muted">Commission ${(terms.commission_rate * 100).toFixed(1)}%; the smallest withdrawal is ${usd(terms.min_withdrawal)} USD.</p>
${view.mayWithdraw ? withdrawalForm(view, terms.min_withdrawal) : ''}</section>
<section aria-labelledby="withdrawals"><h2 id="withdrawals">Withdrawals</h2>
<table><thead><tr><th>Number</th><th class="n">Amount (USD)</th><th>Status</th><th>Requested</th><th>Updated</th></tr></thead>
<tbody>${withdrawals.withdrawals.map((row) => html`<tr><td>${row.id}</td><td class="n">${usd(row.amount)}</td><td>${row.status}</td><td>${row.created_at}</td><td>${row.updated_at}</td></tr>`)}</tbody></table>
${latestOf(withdrawals.withdrawals.length, withdrawals.total)}</section>
<section aria-labelledby="payouts"><h2 id="payouts">Payouts</h2>
<table><thead><tr><th>Number</th><th>Period</th><th class="n">Revenue (USD)</th><th class="n">Commission (USD)</th><th class="n">Net (USD)</th><th>Credited on</th></tr></thead>
<tbody>${payouts.payouts.map((row) => html`<tr><td>${row.number}</td><td>${row.period}</td><td class="n">${usd(row.amount)}</td><td class="n">${usd(row.commission)}</td><td class="n">${usd(row.net_amount)}</td><td>${row.applied_at}</td></tr>`)}</tbody></table>
${latestOf(payouts.payouts.length, payouts.total)}</section>`;
}

function latestOf(shown: number, total: number): Html | '' {
  return total > shown ? html`<p class="muted">The latest ${shown} of ${total}.</p>` : '';
}

function withdrawalForm({ csrfToken, form = {}, refusal }: FinanceView, minimum: number): Html {
  return html`<h3>Request a withdrawal</h3>
<form class="stack" method="post" action="/console/finance/withdrawals">
<input type="hidden" name="_csrf" value="${csrfToken}">
${refusal ? refusalMessage(refusal) : ''}
<label>Amount (USD) <input name="amount" inputmode="decimal" required value="${form.amount ?? ''}"></label>
<p class="muted">At least ${usd(minimum)} USD, and no more than the available balance less what pending requests ask for.</p>
<button type="submit">Request withdrawal</button>
</form>`;
}

export function financePages(app: FastifyInstance, ctx: AppContext): void {
  const viewOf = (who: SignedIn, csrfToken: string): FinanceView => ({
    csrfToken,
    mayWithdraw: roleAllows(who.member.role, 'finance.withdraw'),
  });

  app.get(
    '/console/finance',
    consoleRoute(ctx, 'finance', 'Finance', async (who, _request, csrfToken) =>
      financeContent(ctx, who.label, viewOf(who, csrfToken)),
    ),
  );

  // The new request shows in the page's list of withdrawals; a reload does not ask again.
  app.post(
    '/console/finance/withdrawals',
    { preHandler: app.csrfProtection },
    consoleRoute(
      ctx,
      'finance',
      'Finance',
      async (who, request, csrfToken): Promise<PageAnswer> => {
        const form = formOf(request);
        const outcome = await refusalOr(() => createWithdrawal(ctx, who.label.id, form.amount ?? ''));
        if (!(outcome instanceof ApiError)) return { redirect: '/console/finance' };
        const view = { ...viewOf(who, csrfToken), form, refusal: outcome };
        return { status: outcome.status, content: await financeContent(ctx, who.label, view) };
      },
      'finance.withdraw',
    ),
  );
}
