import { type Json, readJson } from '../../db/json-column.ts';
import type { Issue } from './validation.rules.ts';

/**
 * The pure rules that only warn: nothing here blocks submission, each names what platforms may
 * return or what a label wants to know before the release date.
 */

/** Spotify and Apple Music ask for 3000 x 3000; 1400 (the upload's floor) is still accepted. */
export const RECOMMENDED_COVER_SIDE = 3000;

export function coverUnderRecommendedSize(width: number | null, height: number | null): Issue | null {
  if (width === null || height === null) return null;
  if (Math.min(width, height) >= RECOMMENDED_COVER_SIDE) return null;
  return {
    code: 'cover_under_recommended_size',
    message: `The cover is ${width} x ${height} px; platforms recommend ${RECOMMENDED_COVER_SIDE} x ${RECOMMENDED_COVER_SIDE} px, and some feature only covers that large.`,
  };
}

/** Delivery, platform ingestion and pre-save pages take about a week (the distributors' own advice). */
export const RELEASE_LEAD_DAYS = 7;
const DAY_MS = 86_400_000;

function daysFromToday(date: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((Date.parse(`${date}T00:00:00Z`) - today) / DAY_MS);
}

export function releaseDateTooSoon(releaseDate: string, now: Date): Issue | null {
  const days = daysFromToday(releaseDate, now);
  if (days >= RELEASE_LEAD_DAYS) return null;
  const when =
    days < 0 ? 'is in the past' : days === 0 ? 'is today' : `is ${days} day${days === 1 ? '' : 's'} away`;
  return {
    code: 'release_date_too_soon',
    message: `The release date, ${releaseDate}, ${when}; platforms need about ${RELEASE_LEAD_DAYS} days to list a release on its date, so set a later date or expect it to appear late.`,
  };
}

/**
 * Words no clean lyric carries, in any form: deliberately short, so a warning means the lyrics
 * really show explicit content ("hell", "damn" or words with an innocent sense are not listed).
 */
const EXPLICIT_WORD =
  /(?<![\p{L}\p{N}])(?:(?:mother)?fuck\p{L}*|(?:bull)?shit(?:s|ty|ting|ted)?|cunts?|bitch(?:es)?|assholes?)(?![\p{L}\p{N}])/iu;

export interface LyricsOfRow {
  readonly lyrics_text: string | null;
  readonly lyrics_lines: Json<{ time: number; text: string }[]> | null;
  readonly explicit: number;
}

function lyricsOf(track: LyricsOfRow): string {
  const lines = track.lyrics_lines === null ? [] : readJson(track.lyrics_lines).map((line) => line.text);
  return [track.lyrics_text ?? '', ...lines].join('\n');
}

export function explicitLyricsNotFlagged(track: LyricsOfRow, trackNumber: number): Issue | null {
  if (track.explicit === 1) return null;
  const word = EXPLICIT_WORD.exec(lyricsOf(track));
  if (word === null) return null;
  return {
    code: 'explicit_lyrics_not_flagged',
    message: `The lyrics of track ${trackNumber} contain explicit language ("${word[0]}") but the track is not marked explicit; set explicit: true, or platforms may return the release.`,
  };
}

/** Another release's track of the label carrying the same ISRC. */
export interface IsrcUse {
  readonly isrc: string;
  readonly title: string;
  readonly title_key: string;
  readonly release_id: number;
}

/** The first use of the track's ISRC elsewhere under another title; the same title is a re-release. */
export function isrcUsedWithOtherTitle(
  track: { readonly isrc: string | null; readonly title_key: string },
  uses: readonly IsrcUse[],
  trackNumber: number,
): Issue | null {
  const other = uses.find((use) => use.isrc === track.isrc && use.title_key !== track.title_key);
  if (other === undefined) return null;
  return {
    code: 'isrc_used_with_other_title',
    message: `The ISRC of track ${trackNumber}, ${other.isrc}, is also on release ${other.release_id} as "${other.title}"; one ISRC names one recording, so check the code.`,
  };
}
