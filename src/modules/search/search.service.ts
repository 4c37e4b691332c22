import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { normalizeIsrc } from '../../lib/isrc.ts';
import { artistsByIds } from '../artists/index.ts';
import { presentReleaseListItem, releaseListRowsByIds } from '../releases/index.ts';
import { presentTrack } from '../tracks/index.ts';
import type { SearchBody, TrackListItem } from './search.schemas.ts';
import {
  artistIdsByName,
  pageOfTrackIds,
  releaseExists,
  releaseIdsByTitle,
  releaseIdsByUpcPrefix,
  type TrackHit,
  type TrackListRow,
  trackListRows,
  tracksByIsrc,
  tracksByTitle,
} from './search.store.ts';

/** Up to this many results of each kind (spec, "Other constants"). */
const SEARCH_LIMIT = 10;
const MIN_QUERY_LENGTH = 2;

type TrackListView = Static<typeof TrackListItem>;
type SearchView = Static<typeof SearchBody>;

/** Length in characters as a reader counts them (an emoji is one), not in UTF-16 units. */
function characters(text: string): number {
  return [...text].length;
}

function presentTrackListItem(row: TrackListRow, workspace: Workspace): TrackListView {
  return {
    ...presentTrack(row, workspace),
    release: {
      id: row.release_id,
      title: row.release_title,
      status: row.release_status,
      upc: row.release_upc,
      artist_name: row.artist_name,
    },
  };
}

/** Rows in the order of `ids` (the store reads a page's rows by id, in no order). */
function inOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export interface TrackListQuery {
  isrc?: string | undefined;
  release_id?: number | undefined;
  q?: string | undefined;
}

/**
 * `/tracks`: filters are combined. An ISRC that is not one is refused rather than silently never
 * matching; a release of another label (or none) is a 404, as the release itself would be.
 */
export async function listTracks(
  ctx: AppContext,
  workspace: Workspace,
  query: TrackListQuery,
  page: PageRequest,
): Promise<{ tracks: TrackListView[]; total: number }> {
  const isrc = query.isrc === undefined ? undefined : normalizeIsrc(query.isrc);
  if (isrc === null) {
    throw errors.invalid(
      'isrc',
      'isrc must be an ISRC: 12 characters such as USRC17607839 (hyphens allowed)',
    );
  }
  if (query.release_id !== undefined && !(await releaseExists(ctx.db, workspace.id, query.release_id))) {
    throw errors.notFound('Release');
  }
  const q = query.q?.trim() || undefined;
  const filter = { isrc, releaseId: query.release_id, q };
  const { ids, total } = await pageOfTrackIds(ctx.db, ctx.dialect, workspace.id, filter, page);
  const rows = inOrder(ids, await trackListRows(ctx.db, workspace.id, ids));
  return { tracks: rows.map((row) => presentTrackListItem(row, workspace)), total };
}

/** Results of several lookups, first ones first, each object once, at most `limit`. */
function firstDistinct<T extends { id: number }>(lists: ReadonlyArray<readonly T[]>, limit: number): T[] {
  const seen = new Set<number>();
  const merged: T[] = [];
  for (const item of lists.flat()) {
    if (merged.length === limit) break;
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    merged.push(item);
  }
  return merged;
}

async function searchTracks(ctx: AppContext, workspaceId: number, q: string): Promise<TrackHit[]> {
  const isrc = normalizeIsrc(q);
  const [byIsrc, byTitle] = await Promise.all([
    isrc === null ? [] : tracksByIsrc(ctx.db, workspaceId, isrc, SEARCH_LIMIT),
    tracksByTitle(ctx.db, ctx.dialect, workspaceId, q, SEARCH_LIMIT),
  ]);
  return firstDistinct([byIsrc, byTitle], SEARCH_LIMIT);
}

/** UPC matches (exact, then by prefix) before title matches. */
async function searchReleaseIds(ctx: AppContext, workspaceId: number, q: string): Promise<number[]> {
  const digits = /^\d+$/.test(q) ? q : null;
  const [byUpc, byTitle] = await Promise.all([
    digits === null ? [] : releaseIdsByUpcPrefix(ctx.db, workspaceId, digits, SEARCH_LIMIT),
    releaseIdsByTitle(ctx.db, ctx.dialect, workspaceId, q, SEARCH_LIMIT),
  ]);
  const ids = [...byUpc, ...byTitle].map((id) => ({ id }));
  return firstDistinct([ids], SEARCH_LIMIT).map(({ id }) => id);
}

/**
 * `/search`: releases by title or UPC, artists by name, tracks by title or ISRC; up to ten of
 * each, code matches first, then newest first.
 */
export async function searchCatalog(
  ctx: AppContext,
  workspace: Workspace,
  rawQuery: string,
): Promise<SearchView> {
  const q = rawQuery.trim();
  if (characters(q) < MIN_QUERY_LENGTH) {
    throw errors.invalid('q', `q must have at least ${MIN_QUERY_LENGTH} characters besides spaces`);
  }
  const [releaseIds, artistIds, tracks] = await Promise.all([
    searchReleaseIds(ctx, workspace.id, q),
    artistIdsByName(ctx.db, ctx.dialect, workspace.id, q, SEARCH_LIMIT),
    searchTracks(ctx, workspace.id, q),
  ]);
  const [releases, artists] = await Promise.all([
    releaseListRowsByIds(ctx.db, workspace.id, releaseIds),
    artistsByIds(ctx.db, workspace.id, artistIds),
  ]);
  return {
    query: q,
    releases: releases.map((row) => presentReleaseListItem(row, workspace, ctx.config.baseUrl)),
    artists: artists.map(({ id, name, releases_count }) => ({ id, name, releases_count })),
    tracks,
  };
}
