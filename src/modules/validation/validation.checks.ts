import type { ReleaseRow } from '../../core/releases.ts';
import type { TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import { MIN_COVER_SIDE } from '../covers/index.ts';
import { MAX_SINGLE_TRACKS } from '../tracks/index.ts';
import { PROBLEM_CODES, type ProblemCode, type Severity, severityOf } from './validation.codes.ts';
import { storedAnalysisIssues } from './validation.lossy.ts';
import {
  audioFactIssues,
  contributorsMissing,
  type Issue,
  RELEASE,
  titleIssues,
  trackOwner,
  versionIssues,
} from './validation.rules.ts';
import { audioHashesOfOtherLabels, isrcUsesOnOtherReleases } from './validation.store.ts';
import {
  coverUnderRecommendedSize,
  explicitLyricsNotFlagged,
  type IsrcUse,
  isrcUsedWithOtherTitle,
  releaseDateTooSoon,
} from './validation.warnings.ts';

/** One thing wrong with a release: a stable code, its severity, the release card's field path, one sentence. */
export interface Problem {
  code: ProblemCode;
  severity: Severity;
  field: string;
  message: string;
  /** The track the problem is on; null for the release itself. */
  track_id: number | null;
}

/** What a stored audio file shows on a look inside it. */
export type AudioFileFinding = { stored: false } | { stored: true; issues: Issue[] };

/**
 * Checks that open the stored files: moderation's (the cover and audio must still be in storage; the
 * audio's lossy-source analysis is the stored one, or made then in the worker threads). Validation
 * and submission pass none and read only what the rows hold, the stored analysis included, so that
 * no request waits on a decoder or a bucket.
 */
export interface FileInspector {
  coverStored(release: ReleaseRow): Promise<boolean>;
  audio(track: TrackRow): Promise<AudioFileFinding>;
}

export interface CheckInput {
  release: ReleaseRow;
  tracks: readonly TrackRow[];
  /** Today, for the release date's lead time. */
  now: Date;
  files?: FileInspector;
}

function problemsAt(field: string, trackId: number | null, issues: readonly (Issue | null)[]): Problem[] {
  return issues
    .filter((issue) => issue !== null)
    .map((issue) => ({
      code: issue.code,
      severity: severityOf(issue.code),
      field,
      message: issue.message,
      track_id: trackId,
    }));
}

/** What both lookups across the catalog found, read once for the whole release. */
interface Elsewhere {
  audioOfOtherLabels: ReadonlySet<string>;
  isrcUses: readonly IsrcUse[];
}

async function lookElsewhere(db: Db, release: ReleaseRow, tracks: readonly TrackRow[]): Promise<Elsewhere> {
  const hashes = tracks.flatMap((track) => (track.audio_hash === null ? [] : [track.audio_hash]));
  const isrcs = tracks.flatMap((track) => (track.isrc === null ? [] : [track.isrc]));
  return {
    audioOfOtherLabels: await audioHashesOfOtherLabels(db, release.label_id, hashes),
    isrcUses: await isrcUsesOnOtherReleases(db, release.label_id, release.id, isrcs),
  };
}

/**
 * Every problem of a release, errors and warnings together: the one checker behind validation,
 * submission and moderation's automated review. Problems come release first (title, version, cover,
 * tracks, release date), then each track in order (title, version, contributors, audio, ISRC,
 * lyrics), so two runs on the same release list them alike.
 */
export async function releaseProblems(db: Db, input: CheckInput): Promise<Problem[]> {
  const { release, tracks, now, files } = input;
  const elsewhere = await lookElsewhere(db, release, tracks);
  const problems: Problem[] = [
    ...problemsAt('title', null, titleIssues(release.title, RELEASE)),
    ...problemsAt('version', null, versionIssues(release.version, RELEASE)),
    ...problemsAt('cover', null, await coverIssues(release, files)),
    ...problemsAt('tracks', null, trackCountIssues(release, tracks.length)),
    ...problemsAt('release_date', null, [releaseDateTooSoon(release.release_date, now)]),
  ];
  // One track at a time: a 30-track album should not queue 30 analyses at once in the threads that
  // every label shares.
  for (const [index, track] of tracks.entries()) {
    problems.push(...(await trackProblems(track, `tracks.${index}`, elsewhere, files)));
  }
  return problems;
}

export function errorsOf(problems: readonly Problem[]): Problem[] {
  return problems.filter((problem) => problem.severity === 'error');
}

/** The errors submit refuses a release for; moderation rejects it for the others. */
export function refusedAtSubmit(problems: readonly Problem[]): Problem[] {
  return problems.filter((problem) => PROBLEM_CODES[problem.code].stops === 'submit');
}

async function trackProblems(
  track: TrackRow,
  path: string,
  elsewhere: Elsewhere,
  files: FileInspector | undefined,
): Promise<Problem[]> {
  const owner = trackOwner(track.number);
  const at = (part: string, issues: readonly (Issue | null)[]) =>
    problemsAt(`${path}.${part}`, track.id, issues);
  return [
    ...at('title', titleIssues(track.title, owner)),
    ...at('version', versionIssues(track.version, owner)),
    ...at('contributors', [contributorsMissing(track.contributors, track.number)]),
    ...at('audio', await audioIssues(track, elsewhere.audioOfOtherLabels, files)),
    ...at('isrc', [isrcUsedWithOtherTitle(track, elsewhere.isrcUses, track.number)]),
    ...at('explicit', [explicitLyricsNotFlagged(track, track.number)]),
  ];
}

async function coverIssues(release: ReleaseRow, files: FileInspector | undefined): Promise<Issue[]> {
  if (release.cover_hash === null) {
    return [
      {
        code: 'cover_missing',
        message: `The release has no cover; upload a square JPEG or PNG image of at least ${MIN_COVER_SIDE} x ${MIN_COVER_SIDE} px.`,
      },
    ];
  }
  if (files && !(await files.coverStored(release))) {
    return [
      {
        code: 'cover_missing',
        message: 'The cover image file is missing from storage; upload the cover again.',
      },
    ];
  }
  const small = coverUnderRecommendedSize(release.cover_width, release.cover_height);
  return small === null ? [] : [small];
}

function trackCountIssues(release: ReleaseRow, count: number): Issue[] {
  if (count === 0) {
    return [{ code: 'tracks_missing', message: 'The release has no tracks; add at least one.' }];
  }
  if (release.type === 'single' && count > MAX_SINGLE_TRACKS) {
    return [
      {
        code: 'single_too_many_tracks',
        message: `A single has at most ${MAX_SINGLE_TRACKS} tracks (this one has ${count}); remove tracks or make it an EP.`,
      },
    ];
  }
  return [];
}

/** Missing audio or file, duplicate of another label, refused facts, then what the file showed: in that order. */
async function audioIssues(
  track: TrackRow,
  elsewhere: ReadonlySet<string>,
  files: FileInspector | undefined,
): Promise<Issue[]> {
  const n = track.number;
  if (track.audio_hash === null) {
    return [{ code: 'audio_missing', message: `Track ${n} has no audio; upload a WAV or FLAC file.` }];
  }
  const file = files
    ? await files.audio(track)
    : { stored: true as const, issues: storedAnalysisIssues(track) };
  const issues: Issue[] = [];
  if (!file.stored) {
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
  if (file.stored) issues.push(...file.issues);
  return issues;
}
