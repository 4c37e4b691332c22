import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { pageOf } from '../../http/pagination.ts';
import { html } from '../../lib/html.ts';
import { percent } from '../../lib/percent.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { linkStats, readSmartLink, smartLinkPage } from '../smart-links/index.ts';
import { consoleRoute, type PageAnswer, pathId, type SignedIn } from './console.pages.ts';
import { dailyChart, rankChart } from './console.render.ts';

/*
 * The Smart links page: the label's links with views, clicks and click rate; and a link's page with
 * its statistics drawn as charts. Read through the services of `/smart-links` and its `/stats`, so
 * the counts still waiting in this process are written first, as for the API.
 */

const PER_PAGE = 50;

async function linkList({ label }: SignedIn, ctx: AppContext): Promise<PageAnswer> {
  const { smart_links: links, total } = await smartLinkPage(
    ctx,
    workspaceOfLabel(label),
    {},
    pageOf({ page: 1, per_page: PER_PAGE }),
  );
  if (links.length === 0) return html`<section><p>No smart links yet.</p></section>`;
  const rows = links.map(
    (
      link,
    ) => html`<tr><td><a href="/console/smart-links/${link.id}">${link.title}</a></td><td>${link.artist_name}</td>
<td>${link.enabled ? 'enabled' : 'disabled'}</td><td class="n">${link.views}</td><td class="n">${link.clicks}</td><td class="n">${percent(link.clicks, link.views)}%</td></tr>`,
  );
  return html`<section aria-label="Smart links"><table><thead><tr><th>Title</th><th>Artist</th><th>State</th><th class="n">Views</th><th class="n">Clicks</th><th class="n">Rate</th></tr></thead>
<tbody>${rows}</tbody></table>${total > links.length ? html`<p class="muted">The ${PER_PAGE} newest of ${total} links.</p>` : ''}</section>`;
}

async function linkDetail({ label }: SignedIn, ctx: AppContext, id: number): Promise<PageAnswer> {
  const workspace = workspaceOfLabel(label);
  const link = await readSmartLink(ctx, workspace, id);
  const stats = await linkStats(ctx, workspace, id);
  const { totals } = stats;
  return html`<p><a href="/console/smart-links">All smart links</a></p>
<section aria-labelledby="link"><h2 id="link">${link.title} — ${link.artist_name}</h2>
<p><a href="${link.url}">${link.url}</a></p>
<p>${totals.views} views, ${totals.clicks} clicks (${totals.rate_percent}%), ${totals.presaves} pre-saves since ${stats.collecting_since.slice(0, 10)}.</p></section>
<section aria-labelledby="days"><h2 id="days">Days</h2>${dailyChart(stats.days.slice(-90))}</section>
<section aria-labelledby="platforms"><h2 id="platforms">Platforms (clicks)</h2>${rankChart(
    'Clicks by platform',
    stats.platforms.map((row) => ({ name: row.title, count: row.clicks })),
  )}</section>
<section aria-labelledby="sources"><h2 id="sources">Sources (views)</h2>${rankChart(
    'Views by source',
    stats.sources.slice(0, 15).map((row) => ({ name: row.source, count: row.views })),
  )}</section>
<section aria-labelledby="devices"><h2 id="devices">Devices (views)</h2>${rankChart(
    'Views by device',
    stats.devices.map((row) => ({ name: row.device, count: row.views })),
  )}</section>
<section aria-labelledby="languages"><h2 id="languages">Languages (views)</h2>${rankChart(
    'Views by language',
    stats.languages.slice(0, 15).map((row) => ({ name: row.language, count: row.views })),
  )}</section>`;
}

export function smartLinkPages(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/console/smart-links',
    consoleRoute(ctx, 'smartLinks', 'Smart links', (who) => linkList(who, ctx)),
  );
  app.get(
    '/console/smart-links/:id',
    consoleRoute(ctx, 'smartLinks', 'Smart link', (who, request) =>
      linkDetail(who, ctx, pathId((request.params as { id: string }).id)),
    ),
  );
}
