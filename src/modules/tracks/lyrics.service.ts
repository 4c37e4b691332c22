import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import {
  formatLrc,
  type LyricLine,
  type LyricsResult,
  linesToText,
  normalizeLines,
  parseLrc,
} from '../../lib/lrc.ts';
import { plainLyrics } from './tracks.fields.ts';
import type { TrackRow } from './tracks.presenter.ts';
import { editTrack, getTrack } from './tracks.service.ts';
import { updateTrackRow } from './tracks.store.ts';

/**
 * A track's lyrics in all three forms. Plain text only: `lines` is empty and `lrc` null (there are
 * no times to show). Timed: `text` is the lines' texts joined by newlines and `lrc` their LRC form.
 */
export interface LyricsView {
  ok: true;
  text: string | null;
  lines: LyricLine[];
  lrc: string | null;
}

export interface LyricsInput {
  text?: string;
  lines?: LyricLine[];
  lrc?: string;
}

function isLine(value: unknown): value is LyricLine {
  if (typeof value !== 'object' || value === null) return false;
  return (
    'time' in value && typeof value.time === 'number' && 'text' in value && typeof value.text === 'string'
  );
}

function storedLines(row: TrackRow): LyricLine[] {
  if (row.lyrics_lines === null) return [];
  const parsed: unknown = JSON.parse(row.lyrics_lines);
  return Array.isArray(parsed) ? parsed.filter(isLine) : [];
}

export function presentLyrics(row: TrackRow): LyricsView {
  const lines = storedLines(row);
  return { ok: true, text: row.lyrics_text, lines, lrc: lines.length > 0 ? formatLrc(lines) : null };
}

function timedColumns(result: LyricsResult, field: 'lines' | 'lrc') {
  if (!result.ok) throw errors.invalid(field, `${field}: ${result.reason}`);
  if (result.lines.length === 0) return { lyrics_text: null, lyrics_lines: null };
  return { lyrics_text: linesToText(result.lines), lyrics_lines: JSON.stringify(result.lines) };
}

/** The columns for a write of exactly one form; an empty one clears the lyrics. */
function lyricsColumns(input: LyricsInput) {
  const given = [input.text, input.lines, input.lrc].filter((form) => form !== undefined).length;
  if (given !== 1) throw errors.invalid('text', 'Send exactly one of text, lines or lrc');
  if (input.lines !== undefined) return timedColumns(normalizeLines(input.lines), 'lines');
  if (input.lrc !== undefined) return timedColumns(parseLrc(input.lrc), 'lrc');
  return { lyrics_text: plainLyrics(input.text ?? null), lyrics_lines: null };
}

export async function getLyrics(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
): Promise<LyricsView> {
  return presentLyrics(await getTrack(ctx, workspace, ids.releaseId, ids.trackId));
}

export async function putLyrics(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
  input: LyricsInput,
): Promise<LyricsView> {
  const columns = lyricsColumns(input);
  const row = await editTrack(ctx, workspace, ids, (trx, track, at) =>
    updateTrackRow(trx, workspace.id, track.id, { ...columns, updated_at: at }),
  );
  return presentLyrics(row);
}
