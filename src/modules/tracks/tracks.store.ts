import type { Insertable, Updateable } from 'kysely';
import type { TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import type { TracksTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export async function findTrack(
  db: Db,
  workspaceId: number,
  releaseId: number,
  trackId: number,
): Promise<TrackRow | undefined> {
  return db
    .selectFrom('tracks')
    .selectAll()
    .where(ownedBy('tracks', workspaceId))
    .where('release_id', '=', releaseId)
    .where('id', '=', trackId)
    .executeTakeFirst();
}

/** How many tracks the release has; with contiguous numbering this is also the last number. */
export async function countReleaseTracks(db: Db, workspaceId: number, releaseId: number): Promise<number> {
  const row = await db
    .selectFrom('tracks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('tracks', workspaceId))
    .where('release_id', '=', releaseId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertTrack(db: Db, row: Insertable<TracksTable>): Promise<TrackRow> {
  return db.insertInto('tracks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateTrackRow(
  db: Db,
  workspaceId: number,
  trackId: number,
  changes: Updateable<TracksTable>,
): Promise<TrackRow> {
  return db
    .updateTable('tracks')
    .set(changes)
    .where(ownedBy('tracks', workspaceId))
    .where('id', '=', trackId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteTrackRow(db: Db, workspaceId: number, trackId: number): Promise<void> {
  await db.deleteFrom('tracks').where(ownedBy('tracks', workspaceId)).where('id', '=', trackId).execute();
}

/** Moves the tracks numbered `from`..`to` (inclusive; no `to`: to the end) of a release by `delta` places. */
export async function shiftTrackNumbers(
  db: Db,
  workspaceId: number,
  releaseId: number,
  range: { from: number; to?: number },
  delta: 1 | -1,
): Promise<void> {
  let query = db
    .updateTable('tracks')
    .set((eb) => ({ number: eb('number', '+', delta) }))
    .where(ownedBy('tracks', workspaceId))
    .where('release_id', '=', releaseId)
    .where('number', '>=', range.from);
  if (range.to !== undefined) query = query.where('number', '<=', range.to);
  await query.execute();
}
