import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { type CsvValue, csvRecord, UTF8_BOM } from '../../lib/csv.ts';
import {
  type ExportCursor,
  type ExportReleaseRow,
  type ExportTrackRow,
  exportReleases,
  exportTracks,
} from './export.store.ts';
import { EXPORT_COLUMNS } from './search.schemas.ts';

/**
 * Tracks read per query: large enough that the per-query cost fades, small enough that a batch is
 * a few hundred kilobytes and, on SQLite, holds the event loop for a few milliseconds at most.
 */
const EXPORT_BATCH = 1000;

type ExportColumn = (typeof EXPORT_COLUMNS)[number];

function exportRecord(track: ExportTrackRow, release: ExportReleaseRow): string {
  const values: Record<ExportColumn, CsvValue> = {
    release_id: release.id,
    release_title: release.title,
    artist: release.artist,
    type: release.type,
    status: release.status,
    release_date: release.release_date,
    upc: release.upc,
    genre: release.genre,
    track_no: track.number,
    track_title: track.title,
    version: track.version,
    isrc: track.isrc,
    explicit: track.explicit === 1,
    language: track.language,
  };
  return csvRecord(EXPORT_COLUMNS.map((column) => values[column]));
}

/** The CSV text of one batch of tracks, each beside its release. */
async function batchText(db: Db, workspaceId: number, tracks: readonly ExportTrackRow[]): Promise<string> {
  const releaseIds = [...new Set(tracks.map((track) => track.release_id))];
  const releases = new Map((await exportReleases(db, workspaceId, releaseIds)).map((row) => [row.id, row]));
  return tracks
    .map((track) => {
      const release = releases.get(track.release_id);
      return release ? exportRecord(track, release) : '';
    })
    .join('');
}

async function* exportChunks(ctx: AppContext, workspace: Workspace): AsyncGenerator<Buffer> {
  yield Buffer.from(UTF8_BOM + csvRecord(EXPORT_COLUMNS), 'utf8');
  let after: ExportCursor | null = null;
  for (;;) {
    const tracks = await exportTracks(ctx.db, workspace.id, after, EXPORT_BATCH);
    if (tracks.length > 0) yield Buffer.from(await batchText(ctx.db, workspace.id, tracks), 'utf8');
    const last = tracks.at(-1);
    if (last === undefined || tracks.length < EXPORT_BATCH) return;
    after = { releaseId: last.release_id, number: last.number, id: last.id };
  }
}

/**
 * The catalog as CSV, one record per track, ordered by release id and track number. It is read
 * batch by batch as the client takes it (the stream pulls the next batch only when the socket has
 * room), so memory stays flat however large the catalog is.
 */
export function catalogCsv(ctx: AppContext, workspace: Workspace): Readable {
  return Readable.from(exportChunks(ctx, workspace), { objectMode: false });
}
