import { type Kysely, sql } from 'kysely';

/**
 * What the lossy-source analysis found in a track's audio (issue 21): JSON naming the audio hash it
 * was made on and its finding, written by a job after each upload; null until that job has run.
 *
 * The tracks of drafts stored before this get that job now, so that validate stops calling their
 * audio "still being checked"; a release past its draft was checked by moderation, which analyses
 * a track without a finding itself. (`audio.analysis` with `{track_id}` is the job each upload queues.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tracks').addColumn('audio_analysis', 'text').execute();
  const now = new Date().toISOString();
  await sql`insert into jobs (kind, payload, run_at, created_at)
    select 'audio.analysis', '{"track_id":' || t.id || '}', ${now}, ${now}
    from tracks t join releases r on r.id = t.release_id
    where t.audio_hash is not null and r.status = 'draft'
    order by t.id`.execute(db);
}
