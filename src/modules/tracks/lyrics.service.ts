import type { AppContext } from '../../context.ts';
import type { TrackRow } from '../../core/tracks.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { type LyricLine, type LyricsResult, linesToText, normalizeLines, parseLrc } from '../../lib/lrc.ts';
import { plainLyrics } from './tracks.fields.ts';
import { lyricsOf } from './tracks.presenter.ts';
import { editTrack, getTrack } from './tracks.service.ts';
import { updateTrackRow } from './tracks.store.ts';

/** The lyrics routes' answer: the three forms of `lyricsOf`, all empty when the track has none. */
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

export function presentLyrics(row: TrackRow): LyricsView {
  return { ok: true, ...(lyricsOf(row) ?? { text: null, lines: [], lrc: null }) };
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
