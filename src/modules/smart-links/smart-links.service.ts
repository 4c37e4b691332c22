import type { Static } from 'typebox';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { findArtistRow } from '../../core/artists.ts';
import { coverUrl } from '../../core/covers.ts';
import { lockLabel } from '../../core/labels.ts';
import { findRelease, findReleaseByUpc } from '../../core/releases.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import { isUniqueViolation } from '../../db/portable.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { calendarDate, requireText } from '../../http/fields.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { searchKey } from '../../lib/text.ts';
import type { Authenticated } from '../keys/index.ts';
import { enforceLimit, requireFeature } from '../plans/index.ts';
import { PLATFORM_KEYS } from '../platforms/index.ts';
import { flushPendingCounts } from './link-counts.ts';
import { freshCode, slugConflict } from './smart-links.addresses.ts';
import { checkTargets, linkChanges, type SmartLinkTarget } from './smart-links.fields.ts';
import { presentSmartLink } from './smart-links.presenter.ts';
import {
  APPEARANCE_FIELDS,
  type CreateSmartLinkBody,
  type SmartLinkPatch,
  type SmartLinkView,
} from './smart-links.schemas.ts';
import {
  deleteTargets,
  findSmartLink,
  insertSmartLink,
  insertTargets,
  listSmartLinks,
  type SmartLinkFilter,
  type SmartLinkRow,
  slugTaken,
  targetsOfLinks,
  updateSmartLink,
  updateTarget,
} from './smart-links.store.ts';

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

/** GET /smart-links/{id}: with the views and clicks this process has not written yet. */
export async function readSmartLink(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<SmartLinkView> {
  await flushPendingCounts(ctx, workspace.id);
  return smartLinkView(ctx, workspace, await loadSmartLink(ctx.db, workspace, id));
}

export async function smartLinkPage(
  ctx: AppContext,
  workspace: Workspace,
  filter: SmartLinkFilter,
  page: PageRequest,
): Promise<{ smart_links: SmartLinkView[]; total: number }> {
  await flushPendingCounts(ctx, workspace.id);
  const q = filter.q?.trim() || undefined;
  const { rows, total } = await listSmartLinks(ctx.db, workspace.id, { ...filter, q }, page);
  const now = ctx.clock.now();
  return {
    smart_links: rows.map(({ link, targets }) => presentSmartLink(ctx.config, workspace, link, targets, now)),
    total,
  };
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

function targetRow(link: SmartLinkRow, target: SmartLinkTarget, position: number) {
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
async function replaceTargets(
  trx: Db,
  link: SmartLinkRow,
  targets: readonly SmartLinkTarget[],
): Promise<void> {
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
  const storeLinks = readJson(release.store_links);
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
