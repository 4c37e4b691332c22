import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { type Html, html } from '../../lib/html.ts';
import { labelSummary, type SummaryView } from '../analytics/index.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { termsOf, USAGE_NAMES, usageOf } from '../plans/index.ts';
import { consoleRoute } from './console.pages.ts';
import { dailyChart } from './console.render.ts';

/** The Overview page: releases by status, the last 30 days of smart-link traffic, the plan's usage. */

const DAYS = 30;

const USAGE_TITLES: Record<(typeof USAGE_NAMES)[number], string> = {
  releases: 'Releases',
  artists: 'Artists',
  members: 'Team members',
  links: 'Smart links',
  api_keys: 'API keys',
  webhooks: 'Webhooks',
};

interface OverviewData {
  summary: SummaryView;
  planName: string;
  usage: Array<{ title: string; used: number; limit: number | null }>;
}

async function overviewData(ctx: AppContext, label: LabelRow): Promise<OverviewData> {
  const terms = termsOf(label);
  const [summary, usage] = await Promise.all([
    labelSummary(ctx, workspaceOfLabel(label), DAYS),
    usageOf(ctx.db, label.id),
  ]);
  return {
    summary,
    planName: terms.plan.name,
    usage: USAGE_NAMES.map((name) => ({
      title: USAGE_TITLES[name],
      used: usage[name],
      limit: terms.limits[name] ?? null,
    })),
  };
}

function overviewContent({ summary, planName, usage }: OverviewData): Html {
  const statuses = Object.entries(summary.releases.by_status).map(
    ([status, count]) => html`<tr><td>${status.replaceAll('_', ' ')}</td><td class="n">${count}</td></tr>`,
  );
  const links = summary.smart_links;
  return html`<section aria-labelledby="releases"><h2 id="releases">Releases by status</h2>
<table><thead><tr><th>Status</th><th class="n">Releases</th></tr></thead><tbody>${statuses}</tbody>
<tfoot><tr><th>All</th><th class="n">${summary.releases.total}</th></tr></tfoot></table></section>
<section aria-labelledby="traffic"><h2 id="traffic">Smart links, last ${DAYS} days</h2>
<p>${links.views} views, ${links.clicks} clicks (${links.rate_percent}%), ${links.presaves} pre-saves across ${links.total} links.</p>
${dailyChart(summary.daily)}</section>
<section aria-labelledby="plan"><h2 id="plan">Plan: ${planName}</h2>
<table><thead><tr><th>Resource</th><th class="n">Used</th><th class="n">Limit</th></tr></thead><tbody>
${usage.map((row) => html`<tr><td>${row.title}</td><td class="n">${row.used}</td><td class="n">${row.limit ?? 'unlimited'}</td></tr>`)}
</tbody></table></section>`;
}

export function overviewPages(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/console',
    consoleRoute(ctx, 'overview', 'Overview', async ({ label }) =>
      overviewContent(await overviewData(ctx, label)),
    ),
  );
}
