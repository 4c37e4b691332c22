import type { TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import type { Dialect } from '../../db/portable.ts';
import { ownedBy } from '../../db/scope.ts';
import { keyContains } from '../../db/text-search.ts';
import type { ReleaseStatus } from '../../db/values.ts';
import { keyMatches } from './search.text.ts';

/** A page request as the pagination helper computes it. */
interface Page {
  limit: number;
  offset: number;
}

export interface TrackListFilter {
  releaseId?: number | undefined;
  /** Canonical ISRC (uppercase, no hyphens). */
  isrc?: string | undefined;
  q?: string | undefined;
}

/** A track with the release fields its `/tracks` list item shows. */
export type TrackListRow = TrackRow & {
  release_title: string;
  release_status: ReleaseStatus;
  release_upc: string | null;
  artist_name: string;
};

/**
 * Filters that name a release or an ISRC leave a handful of rows, so a title filter beside them is
 * checked on those rows rather than through the text index.
 */
function narrowQuery(db: Db, workspaceId: number, filter: TrackListFilter) {
  let query = db.selectFrom('tracks').where(ownedBy('tracks', workspaceId));
  if (filter.releaseId !== undefined) query = query.where('tracks.release_id', '=', filter.releaseId);
  if (filter.isrc !== undefined) query = query.where('tracks.isrc', '=', filter.isrc);
  if (filter.q !== undefined) query = query.where(keyContains('tracks.title_key', filter.q));
  return query;
}

function titleQuery(db: Db, dialect: Dialect, workspaceId: number, q: string) {
  return db
    .selectFrom(keyMatches(dialect, 'tracks', workspaceId, q))
    .innerJoin('tracks', 'tracks.id', 'm.id')
    .where(ownedBy('tracks', workspaceId));
}

async function countOf(query: Promise<{ n: number | string | bigint }>): Promise<number> {
  return Number((await query).n);
}

interface IdPage {
  ids: number[];
  total: number;
}

/** All the workspace's tracks, from the counter the triggers of migration 0004 keep. */
async function workspaceTrackCount(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('track_counts')
    .select('n')
    .where(ownedBy('track_counts', workspaceId))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A title filter alone: through the text index, newest first. */
async function titlePage(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  q: string,
  page: Page,
): Promise<IdPage> {
  const [rows, total] = await Promise.all([
    titleQuery(db, dialect, workspaceId, q)
      .select('m.id')
      .orderBy('m.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    countOf(
      titleQuery(db, dialect, workspaceId, q)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
  ]);
  return { ids: rows.map((row) => row.id), total };
}

/** No filter, or one that names a release or an ISRC: by track number within a release, else newest first. */
async function narrowPage(db: Db, workspaceId: number, filter: TrackListFilter, page: Page): Promise<IdPage> {
  const ordered =
    filter.releaseId === undefined
      ? narrowQuery(db, workspaceId, filter).orderBy('tracks.id', 'desc')
      : narrowQuery(db, workspaceId, filter).orderBy('tracks.number').orderBy('tracks.id');
  const unfiltered = filter.releaseId === undefined && filter.isrc === undefined;
  const [rows, total] = await Promise.all([
    ordered.select('tracks.id').limit(page.limit).offset(page.offset).execute(),
    unfiltered
      ? workspaceTrackCount(db, workspaceId)
      : countOf(
          narrowQuery(db, workspaceId, filter)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow(),
        ),
  ]);
  return { ids: rows.map((row) => row.id), total };
}

/**
 * One page of track ids and the total. Only the ids are read here, from indexes, so a deep page
 * skips index entries rather than whole rows; `trackListRows` then reads the page's rows.
 */
export async function pageOfTrackIds(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  filter: TrackListFilter,
  page: Page,
): Promise<IdPage> {
  const { q } = filter;
  if (q !== undefined && filter.releaseId === undefined && filter.isrc === undefined) {
    return titlePage(db, dialect, workspaceId, q, page);
  }
  return narrowPage(db, workspaceId, filter, page);
}

/** The tracks with these ids, with their release and artist; in no particular order. */
export async function trackListRows(
  db: Db,
  workspaceId: number,
  ids: readonly number[],
): Promise<TrackListRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('tracks')
    .innerJoin('releases', 'releases.id', 'tracks.release_id')
    .innerJoin('artists', 'artists.id', 'releases.artist_id')
    .selectAll('tracks')
    .select([
      'releases.title as release_title',
      'releases.status as release_status',
      'releases.upc as release_upc',
      'artists.name as artist_name',
    ])
    .where(ownedBy('tracks', workspaceId))
    .where('tracks.id', 'in', ids)
    .execute();
}

export async function releaseExists(db: Db, workspaceId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('releases')
    .select('id')
    .where(ownedBy('releases', workspaceId))
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export interface TrackHit {
  id: number;
  title: string;
  isrc: string | null;
  release_id: number;
  release_title: string;
}

function trackHits(db: Db, workspaceId: number) {
  return db
    .selectFrom('tracks')
    .innerJoin('releases', 'releases.id', 'tracks.release_id')
    .select([
      'tracks.id',
      'tracks.title',
      'tracks.isrc',
      'tracks.release_id',
      'releases.title as release_title',
    ])
    .where(ownedBy('tracks', workspaceId));
}

export async function tracksByIsrc(
  db: Db,
  workspaceId: number,
  isrc: string,
  limit: number,
): Promise<TrackHit[]> {
  return trackHits(db, workspaceId)
    .where('tracks.isrc', '=', isrc)
    .orderBy('tracks.id', 'desc')
    .limit(limit)
    .execute();
}

/** Newest first. */
export async function tracksByTitle(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  q: string,
  limit: number,
): Promise<TrackHit[]> {
  return db
    .selectFrom(keyMatches(dialect, 'tracks', workspaceId, q))
    .innerJoin('tracks', 'tracks.id', 'm.id')
    .innerJoin('releases', 'releases.id', 'tracks.release_id')
    .select([
      'tracks.id',
      'tracks.title',
      'tracks.isrc',
      'tracks.release_id',
      'releases.title as release_title',
    ])
    .where(ownedBy('tracks', workspaceId))
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
}

/** Newest first. */
export async function releaseIdsByTitle(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  q: string,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom(keyMatches(dialect, 'releases', workspaceId, q))
    .innerJoin('releases', 'releases.id', 'm.id')
    .select('m.id')
    .where(ownedBy('releases', workspaceId))
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Releases whose UPC starts with `digits`, in UPC order (so an exact match comes first). A range
 * on the (label_id, upc) index rather than LIKE: LIKE 'x%' uses a plain index on neither engine
 * (SQLite's LIKE ignores case; PostgreSQL needs the C collation or a pattern index).
 */
export async function releaseIdsByUpcPrefix(
  db: Db,
  workspaceId: number,
  digits: string,
  limit: number,
): Promise<number[]> {
  const upper = nextDigitPrefix(digits);
  let query = db
    .selectFrom('releases')
    .select('id')
    .where(ownedBy('releases', workspaceId))
    .where('upc', '>=', digits);
  if (upper !== null) query = query.where('upc', '<', upper);
  const rows = await query.orderBy('upc').limit(limit).execute();
  return rows.map((row) => row.id);
}

/** The smallest digit string after every string that starts with `digits`; null after all-nines. */
function nextDigitPrefix(digits: string): string | null {
  const kept = digits.replace(/9+$/, '');
  if (kept === '') return null;
  const last = Number(kept.slice(-1));
  return `${kept.slice(0, -1)}${last + 1}`;
}

/** Ids of artists whose name contains `q`, newest first. */
export async function artistIdsByName(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  q: string,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom(keyMatches(dialect, 'artists', workspaceId, q))
    .innerJoin('artists', 'artists.id', 'm.id')
    .select('m.id')
    .where(ownedBy('artists', workspaceId))
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
