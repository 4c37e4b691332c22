import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { TracksTable } from '../db/schema.ts';
import { ownedBy } from '../db/scope.ts';

/* The track row, and a release's tracks as submission, moderation and takedowns read them. */

export type TrackRow = Selectable<TracksTable>;

export async function listReleaseTracks(db: Db, workspaceId: number, releaseId: number) {
  return db
    .selectFrom('tracks')
    .selectAll()
    .where(ownedBy('tracks', workspaceId))
    .where('release_id', '=', releaseId)
    .orderBy('number')
    .orderBy('id')
    .execute();
}
