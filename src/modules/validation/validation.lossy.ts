import { analysisOfCurrentAudio, type TrackRow } from '../../core/tracks.ts';
import type { LossyEvidence } from '../../db/schema.ts';
import type { Issue } from './validation.rules.ts';

const LOSSLESS_ADVICE = 'upload a WAV or FLAC exported from the lossless master';

/** The `lossy_source` error for what the analysis found: validate and moderation word it alike. */
export function lossySourceIssue(evidence: LossyEvidence, trackNumber: number): Issue {
  if (evidence.kind === 'encoder_tag') {
    return {
      code: 'lossy_source',
      message: `The tags of the audio of track ${trackNumber} name a lossy encoder ("${evidence.tag}"), so it was converted from an MP3 or similar; ${LOSSLESS_ADVICE}.`,
    };
  }
  const kilohertz = (evidence.cutoffHz / 1000).toFixed(1);
  return {
    code: 'lossy_source',
    message: `The audio of track ${trackNumber} has almost no sound above ${kilohertz} kHz, the mark of a file converted from an MP3 or similar; ${LOSSLESS_ADVICE}.`,
  };
}

/**
 * What the stored analysis of the track's audio says, read from the row (the analysis itself runs
 * in a job after each upload, never on the request path): `lossy_source` when it found a lossy
 * source, a pending warning when it has not run on this file yet.
 */
export function storedAnalysisIssues(track: TrackRow): Issue[] {
  const analysis = analysisOfCurrentAudio(track);
  if (analysis === null) {
    return [
      {
        code: 'audio_analysis_pending',
        message: `The audio of track ${track.number} is still being checked for a lossy source; ask again in a moment.`,
      },
    ];
  }
  return analysis.lossy === null ? [] : [lossySourceIssue(analysis.lossy, track.number)];
}
