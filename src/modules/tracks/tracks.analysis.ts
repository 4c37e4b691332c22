import type { Db } from '../../db/database.ts';
import { enqueue } from '../../jobs/queue.ts';

/**
 * The lossy-source analysis of a track's audio just stored (moderation's handler runs it in the
 * audio threads and stores the finding on the track), so that validate can show it without
 * decoding anything on the request path.
 */
export const AUDIO_ANALYSIS_JOB = 'audio.analysis';

/** Queues the analysis of the track's audio, in the transaction that stores it. */
export async function queueAudioAnalysis(trx: Db, trackId: number, at: string): Promise<void> {
  const when = new Date(at);
  await enqueue(trx, [{ kind: AUDIO_ANALYSIS_JOB, payload: { track_id: trackId }, runAt: when }], when);
}
