import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';

/** Where the previous batch ended: the export walks tracks by (release, number, id). */
export interface ExportCursor {
  releaseId: number;
  number: number;
  id: number;
}

export interface ExportTrackRow {
  id: number;
  release_id: number;
  number: number;
  title: string;
  version: string | null;
  isrc: string | null;
  explicit: number;
  language: string | null;
}

export interface ExportReleaseRow {
  id: number;
  title: string;
  artist: string;
  type: string;
  status: string;
  release_date: string;
  upc: string | null;
  genre: string;
}

/**
 * The next `limit` tracks after `after`. The keyset walks the (label_id, release_id, number, id)
 * index, so every batch costs the same however deep it is. Releases are read apart
 * (`exportReleases`): joined here, PostgreSQL would merge-join the releases from the first one on
 * every batch.
 */
export async function exportTracks(
  db: Db,
  workspaceId: number,
  after: ExportCursor | null,
  limit: number,
): Promise<ExportTrackRow[]> {
  let query = db
    .selectFrom('tracks')
    .select([
      'tracks.id',
      'tracks.release_id',
      'tracks.number',
      'tracks.title',
      'tracks.version',
      'tracks.isrc',
      'tracks.explicit',
      'tracks.language',
    ])
    .where(ownedBy('tracks', workspaceId));
  if (after !== null) {
    query = query.where((eb) =>
      eb(
        eb.refTuple('tracks.release_id', 'tracks.number', 'tracks.id'),
        '>',
        eb.tuple(after.releaseId, after.number, after.id),
      ),
    );
  }
  return query
    .orderBy('tracks.release_id')
    .orderBy('tracks.number')
    .orderBy('tracks.id')
    .limit(limit)
    .execute();
}

/** These releases with their artist's name. */
export async function exportReleases(
  db: Db,
  workspaceId: number,
  ids: readonly number[],
): Promise<ExportReleaseRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('releases')
    .innerJoin('artists', 'artists.id', 'releases.artist_id')
    .select([
      'releases.id',
      'releases.title',
      'artists.name as artist',
      'releases.type',
      'releases.status',
      'releases.release_date',
      'releases.upc',
      'releases.genre',
    ])
    .where(ownedBy('releases', workspaceId))
    .where('releases.id', 'in', ids)
    .execute();
}
