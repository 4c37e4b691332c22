import type { AppContext } from '../../context.ts';
import { coverExtension } from '../../core/covers.ts';
import type { ReleaseRow } from '../../core/releases.ts';
import { analysisOfCurrentAudio, type TrackRow } from '../../core/tracks.ts';
import type { LossyEvidence } from '../../db/schema.ts';
import { mediaObjects, objectKey } from '../media/index.ts';
import { errorsOf, type FileInspector, lossySourceIssue, releaseProblems } from '../validation/index.ts';
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
      const analysed = await lossyEvidenceOf(ctx, track);
      if (analysed === null) return { stored: false };
      const { evidence } = analysed;
      return { stored: true, issues: evidence === null ? [] : [lossySourceIssue(evidence, track.number)] };
    },
  };
}

async function coverStored(ctx: AppContext, release: ReleaseRow): Promise<boolean> {
  const { cover_hash: hash, cover_format: format } = release;
  if (hash === null || format === null) return false;
  return mediaObjects(ctx.config).has(objectKey('covers', hash, coverExtension(format)));
}

/**
 * The lossy-source finding on the track's audio: the one its job stored when there is one for this
 * file (the file must still be in storage), else a fresh analysis (audio stored before the
 * analyses were kept, or its job has not run yet). Null when the file is not there.
 */
async function lossyEvidenceOf(
  ctx: AppContext,
  track: TrackRow,
): Promise<{ evidence: LossyEvidence | null } | null> {
  const stored = analysisOfCurrentAudio(track);
  const { audio_hash: hash, audio_format: format } = track;
  if (stored === null || hash === null || format === null) return analyseStoredAudio(ctx, track);
  const present = await mediaObjects(ctx.config).has(objectKey('audio', hash, format));
  return present ? { evidence: stored.lossy } : null;
}

/**
 * The lossy-source analysis of the track's stored audio (read into a local file first when the
 * store is a bucket: the decoders need random access); null when the row says too little to find
 * it or the object is not there.
 */
export async function analyseStoredAudio(
  ctx: AppContext,
  track: Pick<TrackRow, 'audio_hash' | 'audio_format'>,
): Promise<{ evidence: LossyEvidence | null } | null> {
  const { audio_hash: hash, audio_format: format } = track;
  if (hash === null || format === null) return null;
  return mediaObjects(ctx.config).withLocalFile(objectKey('audio', hash, format), async (path) => ({
    evidence: await lossySourceEvidenceOffThread(path, format),
  }));
}
