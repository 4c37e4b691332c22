import type { Db } from '../../db/database.ts';
import type { AudioAnalysis } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

/** Whether any release of any label carries this UPC. */
export async function upcInUse(db: Db, upc: string): Promise<boolean> {
  const row = await db.selectFrom('releases').select('id').where('upc', '=', upc).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether any track of any label carries this ISRC. */
export async function isrcInUse(db: Db, isrc: string): Promise<boolean> {
  const row = await db.selectFrom('tracks').select('id').where('isrc', '=', isrc).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function setTrackIsrc(
  db: Db,
  workspaceId: number,
  trackId: number,
  isrc: string,
): Promise<void> {
  await db
    .updateTable('tracks')
    .set({ isrc })
    .where(ownedBy('tracks', workspaceId))
    .where('id', '=', trackId)
    .execute();
}

/** What the audio analysis job reads of a track, whatever its label. */
export async function findTrackAudio(db: Db, trackId: number) {
  return db
    .selectFrom('tracks')
    .select(['id', 'audio_hash', 'audio_format', 'audio_analysis'])
    .where('id', '=', trackId)
    .executeTakeFirst();
}

/** Keeps an analysis on the track, unless its audio was replaced meanwhile (the new file's job analyses that). */
export async function storeAudioAnalysis(db: Db, trackId: number, analysis: AudioAnalysis): Promise<void> {
  await db
    .updateTable('tracks')
    .set({ audio_analysis: JSON.stringify(analysis) })
    .where('id', '=', trackId)
    .where('audio_hash', '=', analysis.audio_hash)
    .execute();
}
