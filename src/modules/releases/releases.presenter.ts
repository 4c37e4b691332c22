import type { Selectable } from 'kysely';
import type { Static } from 'typebox';
import { coverUrl } from '../../core/covers.ts';
import type { TrackRow } from '../../core/tracks.ts';
import { readJson } from '../../db/json-column.ts';
import type { ReleaseDspStatusesTable } from '../../db/schema.ts';
import type { Workspace } from '../../db/scope.ts';
import { presentTrack } from '../tracks/index.ts';
import type { HistoryEntry, ReleaseCard, ReleaseListItem } from './releases.schemas.ts';
import type { ReleaseListRow } from './releases.store.ts';

export type ReleaseListView = Static<typeof ReleaseListItem>;
export type ReleaseCardView = Static<typeof ReleaseCard>;
export type HistoryView = Static<typeof HistoryEntry>;

type DspStatusRow = Pick<Selectable<ReleaseDspStatusesTable>, 'dsp' | 'stage' | 'detail' | 'updated_at'>;

export function presentDspStatuses(rows: readonly DspStatusRow[]): ReleaseCardView['dsp_statuses'] {
  return rows.map(({ dsp, stage, detail, updated_at }) => ({ dsp, stage, detail, updated_at }));
}

export function presentReleaseListItem(
  row: ReleaseListRow,
  workspace: Workspace,
  baseUrl: string,
): ReleaseListView {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    status: row.status,
    release_date: row.release_date,
    upc: row.upc,
    genre: row.genre,
    artist: { id: row.artist_id, name: row.artist_name },
    cover_url: coverUrl(baseUrl, row),
    tracks_count: row.tracks_count,
    created_at: row.created_at,
    submitted_at: row.submitted_at,
    updated_at: row.updated_at,
    ...(workspace.sandbox && { sandbox: true as const }),
  };
}

export function presentReleaseCard(
  row: ReleaseListRow,
  tracks: TrackRow[],
  dspStatuses: DspStatusRow[],
  workspace: Workspace,
  baseUrl: string,
): ReleaseCardView {
  return {
    ...presentReleaseListItem(row, workspace, baseUrl),
    version: row.version,
    original_release_date: row.original_release_date,
    territories: readJson(row.territories),
    featured_artists: readJson(row.featured_artists),
    review_status: row.review_status,
    review_comment: row.review_comment,
    store_links: readJson(row.store_links),
    is_ai_generated: tracks.some((track) => track.ai_service !== null),
    tracks: tracks.map((track) => presentTrack(track, workspace)),
    dsp_statuses: presentDspStatuses(dspStatuses),
  };
}

/** The `release` object of event data. */
export interface EventRelease {
  id: number;
  title: string;
  type: string;
  status: string;
  upc: string | null;
  release_date: string;
  artist: { id: number; name: string };
}

export function presentEventRelease(row: ReleaseListRow): EventRelease {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    status: row.status,
    upc: row.upc,
    release_date: row.release_date,
    artist: { id: row.artist_id, name: row.artist_name },
  };
}
