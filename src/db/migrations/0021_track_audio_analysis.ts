import type { Kysely } from 'kysely';

/**
 * What the lossy-source analysis found in a track's audio (issue 21): JSON naming the audio hash it
 * was made on and its finding, written by a job after each upload; null until that job has run.
 * Tracks stored before this have none, and moderation analyses them itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tracks').addColumn('audio_analysis', 'text').execute();
}
