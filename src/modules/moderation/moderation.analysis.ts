import type { AppContext } from '../../context.ts';
import { analysisOfCurrentAudio } from '../../core/tracks.ts';
import { payloadId } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { analyseStoredAudio } from './moderation.checks.ts';
import { findTrackAudio, storeAudioAnalysis } from './moderation.store.ts';

/**
 * The audio analysis queued at each upload (tracks' AUDIO_ANALYSIS_JOB): the lossy-source analysis
 * of the track's audio, in the audio threads, kept on the track for validate and moderation. A
 * track deleted since, audio already analysed, or a file gone from storage leave nothing to do (the
 * moderation review reports a missing file).
 */
export function audioAnalysisHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const track = await findTrackAudio(ctx.db, payloadId(job.payload, 'track_id'));
    if (!track || track.audio_hash === null || analysisOfCurrentAudio(track) !== null) return undefined;
    const analysed = await analyseStoredAudio(ctx, track);
    if (analysed !== null) {
      await storeAudioAnalysis(ctx.db, track.id, { audio_hash: track.audio_hash, lossy: analysed.evidence });
    }
    return undefined;
  };
}
