import type { TrackRow } from '../../core/tracks.ts';
import { readJson } from '../../db/json-column.ts';
import type { Workspace } from '../../db/scope.ts';
import { formatLrc, type LyricLine } from '../../lib/lrc.ts';
import { AI_ELEMENTS, type AiElement } from './tracks.schemas.ts';

export interface TrackView {
  id: number;
  release_id: number;
  number: number;
  title: string;
  version: string | null;
  version_type: string | null;
  isrc: string | null;
  explicit: boolean;
  instrumental: boolean;
  language: string | null;
  preview_start_sec: number | null;
  lyrics: LyricsForms | null;
  writers: Array<{ name: string; roles: string[] }>;
  contributors: Array<{ name: string; role: string }>;
  featured: Array<{ name: string }>;
  audio: {
    filename: string;
    bytes: number;
    duration_sec: number;
    sample_rate: number;
    bit_depth: number | null;
    channels: number;
  } | null;
  ai: { service: string; elements: AiElement[] } | null;
  sandbox?: true;
  created_at: string;
  updated_at: string;
}

function isAiElement(value: string): value is AiElement {
  return (AI_ELEMENTS as readonly string[]).includes(value);
}

function storedElements(row: TrackRow): string[] {
  return row.ai_elements === null ? [] : readJson(row.ai_elements);
}

/**
 * A track's lyrics in the three forms the contract returns together. Plain text only: `lines` is
 * empty and `lrc` null (there are no times to show). Timed: `text` is the lines' texts joined by
 * newlines and `lrc` their LRC form.
 */
export interface LyricsForms {
  text: string;
  lines: LyricLine[];
  lrc: string | null;
}

function storedLines(row: TrackRow): LyricLine[] {
  return row.lyrics_lines === null ? [] : readJson(row.lyrics_lines);
}

/** The track's lyrics in their three forms; null when it has none. */
export function lyricsOf(row: TrackRow): LyricsForms | null {
  if (row.lyrics_text === null) return null;
  const lines = storedLines(row);
  return { text: row.lyrics_text, lines, lrc: lines.length > 0 ? formatLrc(lines) : null };
}

function audioOf(row: TrackRow): TrackView['audio'] {
  if (row.audio_hash === null || row.audio_filename === null) return null;
  return {
    filename: row.audio_filename,
    bytes: Number(row.audio_bytes ?? 0),
    duration_sec: row.duration_sec ?? 0,
    sample_rate: row.sample_rate ?? 0,
    bit_depth: row.bit_depth,
    channels: row.channels ?? 0,
  };
}

export function presentTrack(row: TrackRow, workspace: Workspace): TrackView {
  return {
    id: row.id,
    release_id: row.release_id,
    number: row.number,
    title: row.title,
    version: row.version,
    version_type: row.version_type,
    isrc: row.isrc,
    explicit: row.explicit === 1,
    instrumental: row.instrumental === 1,
    language: row.language,
    preview_start_sec: row.preview_start_sec,
    lyrics: lyricsOf(row),
    writers: readJson(row.writers),
    contributors: readJson(row.contributors),
    featured: readJson(row.featured),
    audio: audioOf(row),
    ai:
      row.ai_service === null
        ? null
        : { service: row.ai_service, elements: storedElements(row).filter(isAiElement) },
    ...(workspace.sandbox && { sandbox: true as const }),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
