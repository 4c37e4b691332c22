import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import { readJson } from '../db/json-column.ts';
import type { AudioAnalysis, TracksTable } from '../db/schema.ts';
import { ownedBy } from '../db/scope.ts';

/* The track row, and a release's tracks as submission, moderation and takedowns read them. */

export type TrackRow = Selectable<TracksTable>;

/** Every column of a track, named: SQLite builds a JSON object of rows field by field (jsonRows). */
export const TRACK_COLUMNS = [
  'tracks.id',
  'tracks.label_id',
  'tracks.release_id',
  'tracks.number',
  'tracks.title',
  'tracks.title_key',
  'tracks.version',
  'tracks.version_type',
  'tracks.isrc',
  'tracks.explicit',
  'tracks.instrumental',
  'tracks.language',
  'tracks.preview_start_sec',
  'tracks.writers',
  'tracks.contributors',
  'tracks.featured',
  'tracks.lyrics_text',
  'tracks.lyrics_lines',
  'tracks.ai_service',
  'tracks.ai_elements',
  'tracks.audio_hash',
  'tracks.audio_format',
  'tracks.audio_filename',
  'tracks.audio_bytes',
  'tracks.duration_sec',
  'tracks.sample_rate',
  'tracks.bit_depth',
  'tracks.channels',
  'tracks.copied_from',
  'tracks.created_at',
  'tracks.updated_at',
  'tracks.audio_analysis',
] as const satisfies readonly `tracks.${keyof TracksTable}`[];

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

/**
 * The lossy-source analysis of the track's audio as it is now; null when none has run on it yet
 * (its job is waiting, or the finding stored is of a file the track no longer has).
 */
export function analysisOfCurrentAudio(
  track: Pick<TrackRow, 'audio_hash' | 'audio_analysis'>,
): AudioAnalysis | null {
  if (track.audio_hash === null || track.audio_analysis === null) return null;
  const analysis = readJson(track.audio_analysis);
  return analysis.audio_hash === track.audio_hash ? analysis : null;
}
