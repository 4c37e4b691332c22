import type { Static } from 'typebox';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/portable.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { httpUrl } from '../../http/fields.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { searchKey } from '../../lib/text.ts';
import { type ReleaseListView, releasePage } from '../releases/index.ts';
import type { ArtistView, CreateArtistBody, PatchArtistBody } from './artists.schemas.ts';
import {
  type ArtistWithCount,
  findArtist,
  findArtistByNameKey,
  insertArtist,
  listArtists,
  updateArtist,
} from './artists.store.ts';

/** An artist's card shows its newest releases; the whole list is paged at /artists/{id}/releases. */
export const ARTIST_CARD_RELEASES = 100;

export function presentArtist(row: ArtistWithCount, workspace: Workspace): ArtistView {
  return {
    id: row.id,
    name: row.name,
    store_a_url: row.store_a_url,
    store_b_url: row.store_b_url,
    releases_count: row.releases_count,
    created_at: row.created_at,
    ...(workspace.sandbox && { sandbox: true as const }),
  };
}

function checkName(value: string): { name: string; name_key: string } {
  const name = value.trim();
  if (!name) throw errors.invalid('name', 'name must not be empty');
  return { name, name_key: searchKey(name) };
}

/** A store address: an absolute http(s) URL; null clears it. */
function checkStoreUrl(field: string, value: string | null): string | null {
  if (value === null) return null;
  httpUrl(field, value);
  return value.trim();
}

function nameTaken(artistId: number) {
  return errors.conflict('An artist with this name already exists in this label', { artist_id: artistId });
}

/** The unique index decides a race between two creations of one name; the loser gets the same 409. */
async function guardNameRace<T>(
  ctx: AppContext,
  workspace: Workspace,
  nameKey: string,
  write: () => Promise<T>,
) {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const holder = await findArtistByNameKey(ctx.db, workspace.id, nameKey);
    if (!holder) throw error;
    throw nameTaken(holder.id);
  }
}

export async function loadArtist(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<ArtistWithCount> {
  const artist = await findArtist(ctx.db, workspace.id, id);
  if (!artist) throw errors.notFound('Artist');
  return artist;
}

export async function artistPage(
  ctx: AppContext,
  workspace: Workspace,
  q: string | undefined,
  page: PageRequest,
): Promise<{ artists: ArtistView[]; total: number }> {
  const query = q?.trim() || undefined;
  const { rows, total } = await listArtists(ctx.db, workspace.id, { q: query }, page);
  return { artists: rows.map((row) => presentArtist(row, workspace)), total };
}

export async function artistCard(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<ArtistView & { releases: ReleaseListView[] }> {
  const artist = await loadArtist(ctx, workspace, id);
  const { releases } = await releasePage(ctx, workspace, { artistId: id }, '-created_at', {
    page: 1,
    perPage: ARTIST_CARD_RELEASES,
    limit: ARTIST_CARD_RELEASES,
    offset: 0,
  });
  return { ...presentArtist(artist, workspace), releases };
}

export async function artistReleases(ctx: AppContext, workspace: Workspace, id: number, page: PageRequest) {
  await loadArtist(ctx, workspace, id);
  return releasePage(ctx, workspace, { artistId: id }, '-created_at', page);
}

export async function createArtist(
  ctx: AppContext,
  workspace: Workspace,
  body: Static<typeof CreateArtistBody>,
): Promise<ArtistView> {
  const { name, name_key } = checkName(body.name);
  const row = {
    name,
    name_key,
    store_a_url: checkStoreUrl('store_a_url', body.store_a_url ?? null),
    store_b_url: checkStoreUrl('store_b_url', body.store_b_url ?? null),
  };
  const existing = await findArtistByNameKey(ctx.db, workspace.id, name_key);
  if (existing) throw nameTaken(existing.id);
  const at = isoNow(ctx.clock);
  const created = await guardNameRace(ctx, workspace, name_key, () =>
    insertArtist(ctx.db, {
      ...row,
      label_id: workspace.id,
      copied_from: null,
      created_at: at,
      updated_at: at,
    }),
  );
  return presentArtist({ ...created, releases_count: 0 }, workspace);
}

export async function patchArtist(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
  body: Static<typeof PatchArtistBody>,
): Promise<ArtistView> {
  await loadArtist(ctx, workspace, id);
  const changes: {
    name?: string;
    name_key?: string;
    store_a_url?: string | null;
    store_b_url?: string | null;
  } = {};
  if (body.name !== undefined) {
    Object.assign(changes, checkName(body.name));
    const holder = await findArtistByNameKey(ctx.db, workspace.id, changes.name_key ?? '');
    if (holder && holder.id !== id) throw nameTaken(holder.id);
  }
  if (body.store_a_url !== undefined) changes.store_a_url = checkStoreUrl('store_a_url', body.store_a_url);
  if (body.store_b_url !== undefined) changes.store_b_url = checkStoreUrl('store_b_url', body.store_b_url);
  await guardNameRace(ctx, workspace, changes.name_key ?? '', () =>
    updateArtist(ctx.db, workspace.id, id, { ...changes, updated_at: isoNow(ctx.clock) }),
  );
  return presentArtist(await loadArtist(ctx, workspace, id), workspace);
}
