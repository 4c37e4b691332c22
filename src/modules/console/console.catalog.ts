import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { ReleaseStatus } from '../../db/values.ts';
import { RELEASE_STATUSES } from '../../db/values.ts';
import { pageOf } from '../../http/pagination.ts';
import { type Html, html } from '../../lib/html.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { type ReleaseListView, releaseCard, releaseHistory, releasePage } from '../releases/index.ts';
import { searchCatalog } from '../search/index.ts';
import { consoleRoute, type PageAnswer, pathId, type SignedIn } from './console.pages.ts';

/*
 * The Catalog page: the label's releases with search, a status filter and paging; and a release's
 * page with its tracks, platform statuses, store links and history. Both read through the services
 * the API's `/releases`, `/search` and `/releases/{id}` use.
 */

const PER_PAGE = 25;

interface CatalogQuery {
  q?: string;
  status?: string;
  page?: string;
}

const isStatus = (value: string | undefined): value is ReleaseStatus =>
  (RELEASE_STATUSES as readonly string[]).includes(value ?? '');

function pageNumber(text: string | undefined): number {
  const page = Number(text);
  return Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1;
}

function catalogHref(query: { q?: string; status?: string; page?: number }): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.status) params.set('status', query.status);
  if (query.page && query.page > 1) params.set('page', String(query.page));
  const text = params.toString();
  return text ? `/console/catalog?${text}` : '/console/catalog';
}

function filterForm(q: string, status: string): Html {
  const options = RELEASE_STATUSES.map(
    (value) => html`<option value="${value}"${value === status ? html` selected` : ''}>${value}</option>`,
  );
  return html`<form class="filters" method="get" action="/console/catalog" role="search">
<label>Search <input name="q" type="search" value="${q}" placeholder="Title or UPC"></label>
<label>Status <select name="status"><option value="">All</option>${options}</select></label>
<button type="submit">Filter</button></form>`;
}

function releaseTable(releases: readonly ReleaseListView[]): Html {
  if (releases.length === 0) return html`<p>No releases match.</p>`;
  const rows = releases.map(
    (
      release,
    ) => html`<tr><td><a href="/console/catalog/${release.id}">${release.title}</a></td><td>${release.artist.name}</td>
<td>${release.type}</td><td>${release.status}</td><td>${release.release_date}</td><td>${release.upc ?? '—'}</td><td class="n">${release.tracks_count}</td></tr>`,
  );
  return html`<table><thead><tr><th>Title</th><th>Artist</th><th>Type</th><th>Status</th><th>Release date</th><th>UPC</th><th class="n">Tracks</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function pager(query: { q?: string; status?: string }, page: number, total: number): Html {
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  const previous =
    page > 1 ? html`<a href="${catalogHref({ ...query, page: page - 1 })}" rel="prev">Previous</a>` : '';
  const next =
    page < pages ? html`<a href="${catalogHref({ ...query, page: page + 1 })}" rel="next">Next</a>` : '';
  return html`<nav class="pager" aria-label="Pages"><span>Page ${page} of ${pages} (${total} releases)</span> ${previous} ${next}</nav>`;
}

async function catalogList({ label }: SignedIn, ctx: AppContext, query: CatalogQuery): Promise<PageAnswer> {
  const workspace = workspaceOfLabel(label);
  const q = (query.q ?? '').trim();
  const status = isStatus(query.status) ? query.status : undefined;
  if (q !== '') {
    const found = await searchCatalog(ctx, workspace, q);
    const releases = status ? found.releases.filter((release) => release.status === status) : found.releases;
    return html`${filterForm(q, status ?? '')}<section aria-label="Releases"><p>The ten best matches for “${q}”.</p>${releaseTable(releases)}</section>`;
  }
  const page = pageNumber(query.page);
  const result = await releasePage(
    ctx,
    workspace,
    { status },
    '-created_at',
    pageOf({ page, per_page: PER_PAGE }),
  );
  return html`${filterForm('', status ?? '')}<section aria-label="Releases">${releaseTable(result.releases)}${pager({ status }, page, result.total)}</section>`;
}

async function releaseDetail({ label }: SignedIn, ctx: AppContext, id: number): Promise<PageAnswer> {
  const workspace = workspaceOfLabel(label);
  const [release, history] = await Promise.all([
    releaseCard(ctx, workspace, id),
    releaseHistory(ctx, workspace, id),
  ]);
  const tracks = release.tracks.map(
    (
      track,
    ) => html`<tr><td class="n">${track.number}</td><td>${track.title}${track.version ? ` (${track.version})` : ''}</td><td>${track.isrc ?? '—'}</td>
<td class="n">${track.audio ? formatDuration(track.audio.duration_sec) : '—'}</td><td>${track.explicit ? 'yes' : 'no'}</td></tr>`,
  );
  const platforms = release.dsp_statuses.map(
    (status) =>
      html`<tr><td>${status.dsp}</td><td>${status.stage}</td><td>${status.detail ?? ''}</td><td>${status.updated_at}</td></tr>`,
  );
  const links = Object.entries(release.store_links).map(
    ([platform, url]) => html`<li>${platform}: <a href="${safeHttpUrl(url)}">${url}</a></li>`,
  );
  const steps = history.map(
    (entry) =>
      html`<tr><td>${entry.at}</td><td>${entry.status}</td><td>${entry.review_status ?? ''}</td><td>${entry.comment ?? ''}</td></tr>`,
  );
  return {
    status: 200,
    content: html`<p><a href="/console/catalog">All releases</a></p>
<section aria-labelledby="release"><h2 id="release">${release.title} — ${release.artist.name}</h2>
<dl><dt>Status</dt><dd>${release.status}${release.review_status ? ` (review: ${release.review_status})` : ''}</dd>
<dt>Type</dt><dd>${release.type}</dd><dt>Release date</dt><dd>${release.release_date}</dd>
<dt>UPC</dt><dd>${release.upc ?? 'not assigned yet'}</dd><dt>Genre</dt><dd>${release.genre}</dd></dl></section>
<section aria-labelledby="tracks"><h2 id="tracks">Tracks</h2>${
      tracks.length === 0
        ? html`<p>No tracks yet.</p>`
        : html`<table><thead><tr><th class="n">#</th><th>Title</th><th>ISRC</th><th class="n">Duration</th><th>Explicit</th></tr></thead><tbody>${tracks}</tbody></table>`
    }</section>
<section aria-labelledby="platforms"><h2 id="platforms">Platforms</h2>${
      platforms.length === 0
        ? html`<p>Not sent to platforms yet.</p>`
        : html`<table><thead><tr><th>Platform</th><th>Stage</th><th>Detail</th><th>Updated</th></tr></thead><tbody>${platforms}</tbody></table>`
    }</section>
<section aria-labelledby="links"><h2 id="links">Store links</h2>${links.length === 0 ? html`<p>None yet.</p>` : html`<ul>${links}</ul>`}</section>
<section aria-labelledby="history"><h2 id="history">History</h2><table><thead><tr><th>When</th><th>Status</th><th>Review</th><th>Comment</th></tr></thead><tbody>${steps}</tbody></table></section>`,
  };
}

function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/** Store links come from platforms' reports: only http(s) addresses become links. */
function safeHttpUrl(url: string): string {
  return /^https?:\/\//i.test(url) ? url : '#';
}

export function catalogPages(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: CatalogQuery }>(
    '/console/catalog',
    consoleRoute(ctx, 'catalog', 'Catalog', (who, request) =>
      catalogList(who, ctx, request.query as CatalogQuery),
    ),
  );
  app.get<{ Params: { id: string } }>(
    '/console/catalog/:id',
    consoleRoute(ctx, 'catalog', 'Release', (who, request) =>
      releaseDetail(who, ctx, pathId((request.params as { id: string }).id)),
    ),
  );
}
