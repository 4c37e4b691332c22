import { findArtistRow } from '../../core/artists.ts';
import { coverExtension } from '../../core/covers.ts';
import { findLabel } from '../../core/labels.ts';
import { loadRelease, type ReleaseRow } from '../../core/releases.ts';
import { listReleaseTracks, type TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import type { Workspace } from '../../db/scope.ts';
import type { AudioFormat, CoverFormat, ReleaseType } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { objectKey } from '../media/index.ts';

/** A file a message refers to: where it is in the media store and what the batch calls it. */
export interface DdexFile {
  /** The object in the media store. */
  readonly key: string;
  /** The file's name in a batch, relative to the message (`resources/…`). */
  readonly uri: string;
  readonly sha256: string;
  readonly bytes: number;
}

export interface DdexCredit {
  readonly name: string;
  /** Labeldesk role names (GET /lookups/contributor-roles). */
  readonly roles: readonly string[];
}

export interface DdexTrack {
  readonly number: number;
  readonly title: string;
  readonly version: string | null;
  readonly isrc: string;
  readonly explicit: boolean;
  readonly instrumental: boolean;
  readonly language: string | null;
  readonly durationSec: number;
  readonly featured: readonly string[];
  readonly contributors: readonly DdexCredit[];
  readonly writers: readonly DdexCredit[];
  readonly audio: DdexFile & {
    readonly format: AudioFormat;
    readonly channels: number | null;
    readonly bitDepth: number | null;
    readonly sampleRate: number | null;
  };
}

/** A release with everything a NewReleaseMessage says about it, read once. */
export interface DdexRelease {
  readonly id: number;
  readonly upc: string;
  readonly type: ReleaseType;
  readonly title: string;
  readonly version: string | null;
  readonly genre: string;
  readonly releaseDate: string;
  readonly originalReleaseDate: string | null;
  readonly territories: 'worldwide' | readonly string[];
  readonly labelName: string;
  readonly artist: string;
  readonly featured: readonly string[];
  readonly cover: DdexFile & {
    readonly format: CoverFormat;
    readonly width: number;
    readonly height: number;
  };
  readonly tracks: readonly DdexTrack[];
}

export interface Problem {
  readonly field: string;
  readonly message: string;
}

/** The disc and track number in a file name, as DSPs sort them: `<UPC>_01_003.flac`. */
function audioUri(upc: string, number: number, format: AudioFormat): string {
  return `resources/${upc}_01_${String(number).padStart(3, '0')}.${format}`;
}

/** What keeps the release from being described in DDEX: identifiers are given at approval. */
function exportProblems(release: ReleaseRow, tracks: readonly TrackRow[]): Problem[] {
  const problems: Problem[] = [];
  if (release.upc === null) {
    problems.push({ field: 'upc', message: 'The release has no UPC yet: it gets one when it is approved' });
  }
  if (release.cover_hash === null) {
    problems.push({ field: 'cover', message: 'The release has no cover: PUT /releases/{id}/cover first' });
  }
  if (tracks.length === 0) {
    problems.push({ field: 'tracks', message: 'The release has no tracks: add at least one' });
  }
  tracks.forEach((track, index) => {
    if (track.isrc === null) {
      problems.push({
        field: `tracks.${index}.isrc`,
        message: `Track ${track.number} has no ISRC yet: it gets one when the release is approved`,
      });
    }
    if (track.audio_hash === null) {
      problems.push({ field: `tracks.${index}.audio`, message: `Track ${track.number} has no audio` });
    }
  });
  return problems;
}

function names(list: readonly { name: string }[]): string[] {
  return list.map((entry) => entry.name);
}

function presentTrack(upc: string, track: TrackRow): DdexTrack | null {
  const { isrc, audio_hash: hash, audio_format: format } = track;
  if (isrc === null || hash === null || format === null) return null;
  return {
    number: track.number,
    title: track.title,
    version: track.version,
    isrc,
    explicit: track.explicit === 1,
    instrumental: track.instrumental === 1,
    language: track.language,
    durationSec: track.duration_sec ?? 0,
    featured: names(readJson(track.featured)),
    contributors: readJson(track.contributors).map(({ name, role }) => ({ name, roles: [role] })),
    writers: readJson(track.writers),
    audio: {
      key: objectKey('audio', hash, format),
      uri: audioUri(upc, track.number, format),
      sha256: hash,
      bytes: Number(track.audio_bytes ?? 0),
      format,
      channels: track.channels,
      bitDepth: track.bit_depth,
      sampleRate: track.sample_rate,
    },
  };
}

/**
 * The release in the caller's workspace as DDEX describes it: 404 for another label's id, 409
 * `conflict` with `problems` while it lacks its identifiers or files.
 */
export async function loadDdexRelease(db: Db, workspace: Workspace, id: number): Promise<DdexRelease> {
  const release = await loadRelease(db, workspace, id);
  const tracks = await listReleaseTracks(db, workspace.id, id);
  const problems = exportProblems(release, tracks);
  const { upc, cover_hash: coverHash, cover_format: coverFormat } = release;
  const present = upc === null ? [] : tracks.map((track) => presentTrack(upc, track));
  const ready = present.flatMap((track) => (track ? [track] : []));
  if (problems.length > 0 || upc === null || coverHash === null || coverFormat === null) {
    throw errors.conflict(`The release cannot be described in DDEX yet: ${problems[0]?.message}`, {
      problems,
    });
  }
  const [label, artist] = await Promise.all([
    findLabel(db, workspace.id),
    findArtistRow(db, workspace.id, release.artist_id),
  ]);
  const extension = coverExtension(coverFormat);
  return {
    id: release.id,
    upc,
    type: release.type,
    title: release.title,
    version: release.version,
    genre: release.genre,
    releaseDate: release.release_date,
    originalReleaseDate: release.original_release_date,
    territories: readJson(release.territories),
    labelName: label?.name ?? '',
    artist: artist?.name ?? '',
    featured: names(readJson(release.featured_artists)),
    cover: {
      key: objectKey('covers', coverHash, extension),
      uri: `resources/${upc}.${extension}`,
      sha256: coverHash,
      bytes: release.cover_bytes ?? 0,
      format: coverFormat,
      width: release.cover_width ?? 0,
      height: release.cover_height ?? 0,
    },
    tracks: ready,
  };
}
