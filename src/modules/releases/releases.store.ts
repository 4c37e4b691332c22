import type { Insertable } from 'kysely';
import type { ReleaseRow } from '../../core/releases.ts';
import { TRACK_COLUMNS } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import { readJsonRows } from '../../db/json-column.ts';
import { jsonRows } from '../../db/portable.ts';
import { executeNamed, preparedQuery } from '../../db/prepared.ts';
import type { ReleasesTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { ReleaseSort } from './releases.schemas.ts';

export async function insertRelease(db: Db, row: Insertable<ReleasesTable>): Promise<ReleaseRow> {
  return db.insertInto('releases').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A release with what its list item shows beside its own columns. */
export type ReleaseListRow = ReleaseRow & { artist_name: string; tracks_count: number };

export interface ReleaseFilter {
  status?: ReleaseRow['status'] | undefined;
  artistId?: number | undefined;
  upc?: string | undefined;
  ids?: number[] | undefined;
  updatedSince?: string | undefined;
}

const SORT_ORDERS = {
  '-created_at': ['created_at', 'desc'],
  created_at: ['created_at', 'asc'],
  '-release_date': ['release_date', 'desc'],
  release_date: ['release_date', 'asc'],
  title: ['title_key', 'asc'],
} as const satisfies Record<ReleaseSort, readonly [keyof ReleasesTable, 'asc' | 'desc']>;

function filtered(db: Db, workspaceId: number, filter: ReleaseFilter) {
  let query = db.selectFrom('releases').where(ownedBy('releases', workspaceId));
  if (filter.status !== undefined) query = query.where('releases.status', '=', filter.status);
  if (filter.artistId !== undefined) query = query.where('releases.artist_id', '=', filter.artistId);
  if (filter.upc !== undefined) query = query.where('releases.upc', '=', filter.upc);
  if (filter.ids !== undefined) query = query.where('releases.id', 'in', filter.ids);
  if (filter.updatedSince !== undefined) query = query.where('releases.updated_at', '>', filter.updatedSince);
  return query;
}

/** The list columns: the release, its artist's name and its track count. */
function listColumns<Q extends ReturnType<typeof filtered>>(query: Q) {
  return query
    .innerJoin('artists', 'artists.id', 'releases.artist_id')
    .selectAll('releases')
    .select('artists.name as artist_name')
    .select((eb) =>
      eb
        .selectFrom('tracks')
        .select((inner) => inner.fn.countAll().as('n'))
        .whereRef('tracks.release_id', '=', 'releases.id')
        .as('tracks_count'),
    );
}

/**
 * A page of releases and the number the filter matches, in one statement. The page's ids come from
 * the index alone; only those rows are then read with their artist and track count (reading whole
 * rows while skipping to a deep page costs a row read, and on PostgreSQL a track count, for every
 * skipped release). The total rides along on each row; a page past the end has no row to carry it,
 * and only then is it counted on its own.
 */
export async function listReleases(
  db: Db,
  workspaceId: number,
  filter: ReleaseFilter,
  sort: ReleaseSort,
  page: { limit: number; offset: number },
): Promise<{ rows: ReleaseListRow[]; total: number }> {
  const [column, direction] = SORT_ORDERS[sort];
  const pageIds = filtered(db, workspaceId, filter)
    .select('releases.id')
    .orderBy(`releases.${column}`, direction)
    .orderBy('releases.id', direction)
    .limit(page.limit)
    .offset(page.offset);
  const rows = await executeNamed(
    db,
    listColumns(db.selectFrom('releases').where(ownedBy('releases', workspaceId)))
      .where('releases.id', 'in', pageIds)
      .select(releaseCount(db, workspaceId, filter).as('total'))
      .orderBy(`releases.${column}`, direction)
      .orderBy('releases.id', direction),
  );
  const first = rows[0];
  if (!first && page.offset > 0) {
    return {
      rows: [],
      total: Number((await releaseCount(db, workspaceId, filter).executeTakeFirst())?.n ?? 0),
    };
  }
  return {
    rows: rows.map(({ total, ...row }) => ({ ...row, tracks_count: Number(row.tracks_count ?? 0) })),
    total: Number(first?.total ?? 0),
  };
}

/** The workspace's releases with these ids, in the order of the ids, with what a list item shows. */
export async function releaseListRowsByIds(
  db: Db,
  workspaceId: number,
  ids: readonly number[],
): Promise<ReleaseListRow[]> {
  if (ids.length === 0) return [];
  const rows = await listColumns(filtered(db, workspaceId, { ids: [...ids] })).execute();
  const byId = new Map(rows.map((row) => [row.id, { ...row, tracks_count: Number(row.tracks_count ?? 0) }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The number of releases a filter matches, as a query of one row. No filter, or a status alone, is
 * read from the counters the triggers of migration 0004 keep; other filters match few rows, or are
 * bounded, and are counted.
 */
function releaseCount(db: Db, workspaceId: number, filter: ReleaseFilter) {
  const { status, ...others } = filter;
  if (Object.values(others).every((value) => value === undefined)) {
    let counters = db
      .selectFrom('release_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.val(0)).as('n'))
      .where(ownedBy('release_counts', workspaceId));
    if (status !== undefined) counters = counters.where('status', '=', status);
    return counters;
  }
  return filtered(db, workspaceId, filter).select((eb) => eb.fn.countAll<number | string>().as('n'));
}

export async function findReleaseListRow(
  db: Db,
  workspaceId: number,
  id: number,
): Promise<ReleaseListRow | undefined> {
  const row = await listColumns(filtered(db, workspaceId, { ids: [id] })).executeTakeFirst();
  return row && { ...row, tracks_count: Number(row.tracks_count ?? 0) };
}

/** The card's release with its tracks in order and its platform statuses, in one statement. */
const selectReleaseCard = preparedQuery((db: Db, workspaceId: number, id: number) =>
  listColumns(filtered(db, workspaceId, { ids: [id] }))
    .select((eb) =>
      jsonRows(
        db,
        eb
          .selectFrom('tracks')
          .select(TRACK_COLUMNS)
          .where(ownedBy('tracks', workspaceId))
          .whereRef('tracks.release_id', '=', 'releases.id')
          .orderBy('tracks.number')
          .orderBy('tracks.id'),
      ).as('tracks'),
    )
    .select((eb) =>
      jsonRows(
        db,
        eb
          .selectFrom('release_dsp_statuses')
          .select([
            'release_dsp_statuses.dsp',
            'release_dsp_statuses.stage',
            'release_dsp_statuses.detail',
            'release_dsp_statuses.updated_at',
          ])
          .where(ownedBy('release_dsp_statuses', workspaceId))
          .whereRef('release_dsp_statuses.release_id', '=', 'releases.id')
          .orderBy('release_dsp_statuses.dsp'),
      ).as('dsp_statuses'),
    ),
);

export async function findReleaseCard(db: Db, workspaceId: number, id: number) {
  const [found] = await selectReleaseCard(db, workspaceId, id);
  if (!found) return undefined;
  const { tracks, dsp_statuses, ...row } = found;
  return {
    row: { ...row, tracks_count: Number(row.tracks_count ?? 0) },
    tracks: readJsonRows(tracks),
    dspStatuses: readJsonRows(dsp_statuses),
  };
}

/**
 * Releases of every label that wait for an operator's review, oldest submission first (sandboxes
 * never wait: their releases are accepted at once).
 */
export async function listReleasesAwaitingReview(db: Db): Promise<ReleaseListRow[]> {
  const rows = await listColumns(db.selectFrom('releases'))
    .where('releases.status', '=', 'submitting')
    .where('releases.review_status', '=', 'pending')
    .orderBy('releases.submitted_at')
    .orderBy('releases.id')
    .execute();
  return rows.map((row) => ({ ...row, tracks_count: Number(row.tracks_count ?? 0) }));
}

export async function listDspStatuses(db: Db, workspaceId: number, releaseId: number) {
  return db
    .selectFrom('release_dsp_statuses')
    .select(['dsp', 'stage', 'detail', 'updated_at'])
    .where(ownedBy('release_dsp_statuses', workspaceId))
    .where('release_id', '=', releaseId)
    .orderBy('dsp')
    .execute();
}

export async function listHistory(db: Db, workspaceId: number, releaseId: number) {
  return db
    .selectFrom('release_history')
    .select(['status', 'review_status', 'comment', 'at'])
    .where(ownedBy('release_history', workspaceId))
    .where('release_id', '=', releaseId)
    .orderBy('id')
    .execute();
}

export async function deleteRelease(db: Db, workspaceId: number, id: number): Promise<void> {
  await db.deleteFrom('releases').where(ownedBy('releases', workspaceId)).where('id', '=', id).execute();
}

/** How many of the workspace's releases are in each status (statuses with none are absent). */
export async function releaseCountsByStatus(db: Db, workspaceId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('releases')
    .select(['status', (eb) => eb.fn.countAll().as('n')])
    .where(ownedBy('releases', workspaceId))
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status, Number(row.n)]));
}
