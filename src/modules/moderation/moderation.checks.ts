import type { AppContext } from '../../context.ts';
import { coverExtension } from '../../core/covers.ts';
import type { ReleaseRow } from '../../core/releases.ts';
import type { TrackRow } from '../../core/tracks.ts';
import { mediaObjects, objectKey } from '../media/index.ts';
import { errorsOf, type FileInspector, type Issue, releaseProblems } from '../validation/index.ts';
import type { LossyEvidence } from './moderation.lossy.ts';
import { lossySourceEvidenceOffThread } from './moderation.pool.ts';

/** One automated finding: a stable snake_case code, the release card's field path, one sentence. */
export interface Finding {
  code: string;
  field: string;
  message: string;
}

/**
 * Every automated finding on a release waiting for moderation; empty means it passes. They are the
 * errors of the release checker (validation's, as submit and validate use it) with the stored files
 * opened as well: the cover and audio must still be in storage, and the audio must not come from a
 * lossy file. Warnings do not reject a release, so they are not findings.
 */
export async function automatedChecks(
  ctx: AppContext,
  release: ReleaseRow,
  tracks: readonly TrackRow[],
): Promise<Finding[]> {
  const problems = await releaseProblems(ctx.db, {
    release,
    tracks,
    now: ctx.clock.now(),
    files: storedFiles(ctx),
  });
  return errorsOf(problems).map(({ code, field, message }) => ({ code, field, message }));
}

function storedFiles(ctx: AppContext): FileInspector {
  return {
    coverStored: (release) => coverStored(ctx, release),
    audio: async (track) => {
      const analysed = await analyseStoredAudio(ctx, track);
      if (analysed === null) return { stored: false };
      const { evidence } = analysed;
      return { stored: true, issues: evidence === null ? [] : [lossySource(evidence, track.number)] };
    },
  };
}

async function coverStored(ctx: AppContext, release: ReleaseRow): Promise<boolean> {
  const { cover_hash: hash, cover_format: format } = release;
  if (hash === null || format === null) return false;
  return mediaObjects(ctx.config).has(objectKey('covers', hash, coverExtension(format)));
}

/**
 * The lossy-source analysis of the track's stored audio (read into a local file first when the
 * store is a bucket: the decoders need random access); null when the row says too little to find
 * it or the object is not there.
 */
async function analyseStoredAudio(
  ctx: AppContext,
  track: TrackRow,
): Promise<{ evidence: LossyEvidence | null } | null> {
  const { audio_hash: hash, audio_format: format } = track;
  if (hash === null || format === null) return null;
  return mediaObjects(ctx.config).withLocalFile(objectKey('audio', hash, format), async (path) => ({
    evidence: await lossySourceEvidenceOffThread(path, format),
  }));
}

const LOSSLESS_ADVICE = 'upload a WAV or FLAC exported from the lossless master';

function lossySource(evidence: LossyEvidence, trackNumber: number): Issue {
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
