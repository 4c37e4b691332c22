import type { AppContext } from '../../context.ts';
import { coverExtension } from '../../core/covers.ts';
import type { ReleaseRow } from '../../core/releases.ts';
import type { TrackRow } from '../../core/tracks.ts';
import { MIN_COVER_SIDE } from '../covers/index.ts';
import { mediaObjects, objectKey } from '../media/index.ts';
import type { LossyEvidence } from './moderation.lossy.ts';
import { lossySourceEvidenceOffThread } from './moderation.pool.ts';
import {
  audioFactIssues,
  contributorsMissing,
  type Issue,
  RELEASE,
  titleIssues,
  trackOwner,
  versionIssues,
} from './moderation.rules.ts';
import { audioHashesOfOtherLabels } from './moderation.store.ts';

/** One automated finding: a stable snake_case code, the release card's field path, one sentence. */
export interface Finding {
  code: string;
  field: string;
  message: string;
}

function at(field: string, issues: readonly Issue[]): Finding[] {
  return issues.map((issue) => ({ code: issue.code, field, message: issue.message }));
}

/**
 * Every automated finding on a release waiting for moderation; empty means it passes. Findings
 * come release first (title, version, cover), then each track in the order given (title, version,
 * contributors, audio), so two runs on the same release list them alike.
 */
export async function automatedChecks(
  ctx: AppContext,
  release: ReleaseRow,
  tracks: readonly TrackRow[],
): Promise<Finding[]> {
  const hashes = tracks.flatMap((track) => (track.audio_hash === null ? [] : [track.audio_hash]));
  const elsewhere = await audioHashesOfOtherLabels(ctx.db, release.label_id, hashes);
  const findings: Finding[] = [
    ...at('title', titleIssues(release.title, RELEASE)),
    ...at('version', versionIssues(release.version, RELEASE)),
    ...(await coverFindings(ctx, release)),
  ];
  // One track at a time: a 30-track album should not queue 30 analyses at once in the threads that
  // every label shares.
  for (const [index, track] of tracks.entries()) {
    const path = `tracks.${index}`;
    const owner = trackOwner(track.number);
    findings.push(
      ...at(`${path}.title`, titleIssues(track.title, owner)),
      ...at(`${path}.version`, versionIssues(track.version, owner)),
      ...at(
        `${path}.contributors`,
        [contributorsMissing(track.contributors, track.number)].filter((issue) => issue !== null),
      ),
      ...at(`${path}.audio`, await audioIssues(ctx, track, elsewhere)),
    );
  }
  return findings;
}

async function coverFindings(ctx: AppContext, release: ReleaseRow): Promise<Finding[]> {
  if (release.cover_hash === null) {
    return at('cover', [
      {
        code: 'cover_missing',
        message: `The release has no cover; upload a square JPEG or PNG image of at least ${MIN_COVER_SIDE} x ${MIN_COVER_SIDE} px.`,
      },
    ]);
  }
  const format = release.cover_format;
  const stored =
    format !== null &&
    (await mediaObjects(ctx.config).has(objectKey('covers', release.cover_hash, coverExtension(format))));
  if (stored) return [];
  return at('cover', [
    {
      code: 'cover_missing',
      message: 'The cover image file is missing from storage; upload the cover again.',
    },
  ]);
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

/** Missing file, duplicate of another label, refused facts, lossy source: in that order. */
async function audioIssues(
  ctx: AppContext,
  track: TrackRow,
  elsewhere: ReadonlySet<string>,
): Promise<Issue[]> {
  const n = track.number;
  if (track.audio_hash === null) {
    return [{ code: 'audio_missing', message: `Track ${n} has no audio; upload a WAV or FLAC file.` }];
  }
  const analysed = await analyseStoredAudio(ctx, track);
  const issues: Issue[] = [];
  if (analysed === null) {
    issues.push({
      code: 'audio_missing',
      message: `The audio file of track ${n} is missing from storage; upload the audio again.`,
    });
  }
  if (elsewhere.has(track.audio_hash)) {
    issues.push({
      code: 'duplicate_audio',
      message: `The audio of track ${n} is byte-for-byte identical to a track of another label; deliver only recordings this label holds the rights to.`,
    });
  }
  issues.push(...audioFactIssues(track, n));
  const evidence = analysed?.evidence ?? null;
  if (evidence !== null) issues.push(lossySource(evidence, n));
  return issues;
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
