import type { Static } from '@sinclair/typebox';
import type { Updateable } from 'kysely';
import { isoNow } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { findArtistRow } from '../../core/artists.ts';
import { coverUrl } from '../../core/covers.ts';
import { lockLabel } from '../../core/labels.ts';
import { findRelease, findReleaseByUpc } from '../../core/releases.ts';
import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/portable.ts';
import type { SmartLinksTable } from '../../db/schema.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { calendarDate, httpUrl, requireText } from '../../http/fields.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { utcDay } from '../../lib/dates.ts';
import { randomBase62 } from '../../lib/random.ts';
import { searchKey } from '../../lib/text.ts';
import type { Authenticated } from '../keys/index.ts';
import { enforceLimit, requireFeature } from '../plans/index.ts';
import { PLATFORM_KEYS } from '../platforms/index.ts';
import { parseJson } from '../releases/index.ts';
import {
  APPEARANCE_FIELDS,
  type CreateSmartLinkBody,
  type SmartLinkPatch,
  type SmartLinkView,
  type TargetInput,
  type Theme,
} from './smart-links.schemas.ts';
import {
  codeTaken,
  deleteTargets,
  findSmartLink,
  insertSmartLink,
  insertTargets,
  listSmartLinks,
  type SmartLinkFilter,
  type SmartLinkRow,
  slugTaken,
  type TargetRow,
  targetsOfLinks,
  updateSmartLink,
  updateTarget,
} from './smart-links.store.ts';

type Target = Static<typeof TargetInput>;

const CODE_LENGTH = 7;

/**
 * Words a slug may not be: paths of the page itself, of the service, and names a fan would take
 * for the service's own pages.
 */
const RESERVED_SLUGS = new Set([
  'admin',
  'api',
  'app',
  'assets',
  'dashboard',
  'docs',
  'favicon-ico',
  'go',
  'help',
  'labeldesk',
  'login',
  'media',
  'new',
  'presave',
  'robots-txt',
  'settings',
  'static',
  'status',
  'support',
  'www',
]);

/** The public page of a link. */
export function smartLinkUrl(
  config: Pick<Config, 'shortLinkBase'>,
  link: Pick<SmartLinkRow, 'slug' | 'code'>,
) {
  return `${config.shortLinkBase}/${link.slug ?? link.code}`;
}

/** Pre-saves are open while the release date is after today (UTC). */
export function presaveOpen(link: Pick<SmartLinkRow, 'release_date'>, now: Date): boolean {
  return link.release_date > utcDay(now);
}

export function presentSmartLink(
  config: Pick<Config, 'shortLinkBase'>,
  workspace: Workspace,
  row: SmartLinkRow,
  targets: readonly TargetRow[],
  now: Date,
): SmartLinkView {
  return {
    id: row.id,
    code: row.code,
    slug: row.slug,
    url: smartLinkUrl(config, row),
    enabled: row.enabled === 1,
    title: row.title,
    artist_name: row.artist_name,
    release_date: row.release_date,
    release_id: row.release_id,
    presave_open: presaveOpen(row, now),
    views: Number(row.views),
    clicks: Number(row.clicks),
    presaves: Number(row.presaves),
    targets: targets.map((target) => ({
      id: target.id,
      platform: target.platform as Target['platform'],
      url: target.url,
      clicks: Number(target.clicks),
    })),
    theme: row.theme as Theme,
    accent: row.accent,
    cta_text: row.cta_text,
    hide_branding: row.hide_branding === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(workspace.sandbox && { sandbox: true as const }),
  };
}

async function presentRows(
  ctx: AppContext,
  workspace: Workspace,
  rows: readonly SmartLinkRow[],
): Promise<SmartLinkView[]> {
  const targets = await targetsOfLinks(
    ctx.db,
    workspace.id,
    rows.map((row) => row.id),
  );
  const now = ctx.clock.now();
  return rows.map((row) =>
    presentSmartLink(
      ctx.config,
      workspace,
      row,
      targets.filter((target) => target.link_id === row.id),
      now,
    ),
  );
}

export async function smartLinkView(ctx: AppContext, workspace: Workspace, row: SmartLinkRow) {
  const [view] = await presentRows(ctx, workspace, [row]);
  if (!view) throw new Error('a presented link went missing');
  return view;
}

export async function loadSmartLink(db: Db, workspace: Workspace, id: number): Promise<SmartLinkRow> {
  const row = await findSmartLink(db, workspace.id, id);
  if (!row) throw errors.notFound('Smart link');
  return row;
}

export async function smartLinkPage(
  ctx: AppContext,
  workspace: Workspace,
  filter: SmartLinkFilter,
  page: PageRequest,
): Promise<{ smart_links: SmartLinkView[]; total: number }> {
  const q = filter.q?.trim() || undefined;
  const { rows, total } = await listSmartLinks(ctx.db, workspace.id, { ...filter, q }, page);
  return { smart_links: await presentRows(ctx, workspace, rows), total };
}

function checkTargets(targets: readonly Target[]): Target[] {
  const seen = new Set<string>();
  return targets.map((target, index) => {
    if (seen.has(target.platform)) {
      throw errors.invalid(
        `targets.${index}.platform`,
        `${target.platform} is listed twice: one target per platform`,
      );
    }
    seen.add(target.platform);
    // Stored normalized: the redirect sends it as a Location header, which takes no raw spaces or non-ASCII.
    return { platform: target.platform, url: httpUrl(`targets.${index}.url`, target.url).href };
  });
}

function checkSlug(slug: string): string {
  if (slug.startsWith('-') || slug.endsWith('-')) {
    throw errors.invalid('slug', 'slug must not start or end with a hyphen');
  }
  if (RESERVED_SLUGS.has(slug)) throw errors.invalid('slug', `"${slug}" is reserved; choose another slug`);
  return slug;
}

async function checkReleaseId(
  db: Db,
  workspace: Workspace,
  releaseId: number | null,
): Promise<number | null> {
  if (releaseId === null) return null;
  const release = await findRelease(db, workspace.id, releaseId);
  if (!release) throw errors.invalid('release_id', 'No release with this id in this label');
  return release.id;
}

function slugConflict() {
  return errors.conflict('This slug is taken; choose another', { field: 'slug' });
}

/** A new random code; it always has a capital letter, so no slug (lowercase) can ever equal it. */
function newCode(): string {
  for (;;) {
    const code = randomBase62(CODE_LENGTH);
    if (/[A-Z]/.test(code)) return code;
  }
}

/** A code no link has: 62^7 codes make a clash rare, and the unique index still guards the insert. */
async function freshCode(db: Db): Promise<string> {
  for (;;) {
    const code = newCode();
    if (!(await codeTaken(db, code))) return code;
  }
}

function targetRow(link: SmartLinkRow, target: Target, position: number) {
  return { link_id: link.id, label_id: link.label_id, position, platform: target.platform, url: target.url };
}

export async function createSmartLink(
  ctx: AppContext,
  auth: Authenticated,
  body: Static<typeof CreateSmartLinkBody>,
): Promise<SmartLinkView> {
  const { workspace } = auth;
  const title = requireText('title', body.title);
  const artistName = requireText('artist_name', body.artist_name);
  const releaseDate = calendarDate('release_date', body.release_date);
  const targets = checkTargets(body.targets);
  const at = isoNow(ctx.clock);
  const link = await ctx.db.transaction().execute(async (trx) => {
    await lockLabel(trx, ctx.dialect, workspace.id);
    const releaseId = await checkReleaseId(trx, workspace, body.release_id ?? null);
    await enforceLimit(trx, auth.label, 'links', workspace.id);
    const created = await insertSmartLink(trx, {
      label_id: workspace.id,
      code: await freshCode(trx),
      slug: null,
      title,
      artist_name: artistName,
      search_key: searchKey(`${title}\n${artistName}`),
      release_date: releaseDate,
      release_id: releaseId,
      enabled: 1,
      theme: 'auto',
      accent: null,
      cta_text: null,
      hide_branding: 0,
      collecting_since: at,
      created_at: at,
      updated_at: at,
    });
    await insertTargets(
      trx,
      targets.map((target, position) => targetRow(created, target, position)),
    );
    return created;
  });
  return smartLinkView(ctx, workspace, link);
}

/**
 * Replaces the targets as a whole: a platform that stays keeps its id and its clicks (its address
 * and place may change), a platform that goes loses its target, a new one starts at zero.
 */
async function replaceTargets(trx: Db, link: SmartLinkRow, targets: readonly Target[]): Promise<void> {
  const existing = new Map(
    (await targetsOfLinks(trx, link.label_id, [link.id])).map((target) => [target.platform, target]),
  );
  const wanted = new Set<string>(targets.map((target) => target.platform));
  const dropped = [...existing.values()].filter((target) => !wanted.has(target.platform));
  await deleteTargets(
    trx,
    link.label_id,
    dropped.map((target) => target.id),
  );
  const added = [];
  for (const [position, target] of targets.entries()) {
    const kept = existing.get(target.platform);
    if (kept) await updateTarget(trx, link.label_id, kept.id, { position, url: target.url });
    else added.push(targetRow(link, target, position));
  }
  await insertTargets(trx, added);
}

function requireAppearance(auth: Authenticated, patch: SmartLinkPatch): void {
  if (APPEARANCE_FIELDS.some((field) => patch[field] !== undefined))
    requireFeature(auth.label, 'link_appearance');
}

function linkChanges(patch: SmartLinkPatch): Updateable<SmartLinksTable> {
  const changes: Updateable<SmartLinksTable> = {};
  if (patch.title !== undefined) changes.title = requireText('title', patch.title);
  if (patch.artist_name !== undefined) changes.artist_name = requireText('artist_name', patch.artist_name);
  if (patch.release_date !== undefined)
    changes.release_date = calendarDate('release_date', patch.release_date);
  if (patch.slug !== undefined) changes.slug = patch.slug === null ? null : checkSlug(patch.slug);
  if (patch.theme !== undefined) changes.theme = patch.theme;
  if (patch.accent !== undefined) changes.accent = patch.accent?.toLowerCase() ?? null;
  if (patch.cta_text !== undefined)
    changes.cta_text = patch.cta_text === null ? null : requireText('cta_text', patch.cta_text);
  if (patch.hide_branding !== undefined) changes.hide_branding = patch.hide_branding ? 1 : 0;
  if (patch.enabled !== undefined) changes.enabled = patch.enabled ? 1 : 0;
  return changes;
}

export async function patchSmartLink(
  ctx: AppContext,
  auth: Authenticated,
  id: number,
  patch: SmartLinkPatch,
): Promise<SmartLinkView> {
  const { workspace } = auth;
  requireAppearance(auth, patch);
  const changes = linkChanges(patch);
  const targets = patch.targets === undefined ? undefined : checkTargets(patch.targets);
  const run = () =>
    ctx.db.transaction().execute(async (trx) => {
      // Only re-enabling counts against the plan; the label is locked first, as creation locks it.
      if (changes.enabled === 1) await lockLabel(trx, ctx.dialect, workspace.id);
      const link = await loadSmartLink(trx, workspace, id);
      if (changes.enabled === 1 && link.enabled === 0)
        await enforceLimit(trx, auth.label, 'links', workspace.id);
      if (changes.slug && (await slugTaken(trx, changes.slug, link.id))) throw slugConflict();
      const title = changes.title ?? link.title;
      const artistName = changes.artist_name ?? link.artist_name;
      const updated = await updateSmartLink(trx, workspace.id, link.id, {
        ...changes,
        search_key: searchKey(`${title}\n${artistName}`),
        updated_at: isoNow(ctx.clock),
      });
      if (targets) await replaceTargets(trx, updated, targets);
      return updated;
    });
  let link: SmartLinkRow;
  try {
    link = await run();
  } catch (error) {
    // Two links claiming one slug at once: the unique index decides, the loser gets the same 409.
    if (isUniqueViolation(error)) throw slugConflict();
    throw error;
  }
  return smartLinkView(ctx, workspace, link);
}

/** DELETE: the page goes (404), the link, its counters and its pre-saves stay. */
export async function disableSmartLink(ctx: AppContext, workspace: Workspace, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const link = await loadSmartLink(trx, workspace, id);
    if (link.enabled === 0) return;
    await updateSmartLink(trx, workspace.id, link.id, { enabled: 0, updated_at: isoNow(ctx.clock) });
  });
}

/**
 * POST /smart-links/lookup: a release of the label by UPC, with the store addresses the distributor
 * reported, in platform order, ready to send as a new link's targets.
 */
export async function lookupRelease(ctx: AppContext, workspace: Workspace, upc: string) {
  const release = await findReleaseByUpc(ctx.db, workspace.id, upc.trim());
  if (!release) throw errors.notFound('Release with this UPC');
  const artist = await findArtistRow(ctx.db, workspace.id, release.artist_id);
  const storeLinks = parseJson<Record<string, string>>(release.store_links, {});
  return {
    upc: upc.trim(),
    title: release.title,
    artist_name: artist?.name ?? '',
    cover_url: coverUrl(ctx.config.baseUrl, release),
    release_id: release.id,
    release_date: release.release_date,
    targets: PLATFORM_KEYS.flatMap((platform) => {
      const url = storeLinks[platform];
      return url === undefined ? [] : [{ platform, url }];
    }),
  };
}
