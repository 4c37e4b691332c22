import type { Static } from 'typebox';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { findArtistRow } from '../../core/artists.ts';
import { lockLabel } from '../../core/labels.ts';
import {
  assertDraft,
  findReleaseByUpc,
  insertHistory,
  loadRelease,
  touchRelease,
  updateRelease,
} from '../../core/releases.ts';
import { listReleaseTracks } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/portable.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { calendarDate, requireText } from '../../http/fields.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { searchKey } from '../../lib/text.ts';
import type { Authenticated } from '../keys/index.ts';
import { removeUnusedMedia } from '../media/index.ts';
import { enforceLimit } from '../plans/index.ts';
import { checkFeatured, checkGenre, checkTerritories, checkUpc, releaseChanges } from './releases.fields.ts';
import {
  type HistoryView,
  presentDspStatuses,
  presentReleaseCard,
  presentReleaseListItem,
  type ReleaseCardView,
  type ReleaseListView,
} from './releases.presenter.ts';
import type { CreateReleaseBody, PatchReleaseBody, ReleaseSort } from './releases.schemas.ts';
import {
  deleteRelease,
  findReleaseCard,
  insertRelease,
  listDspStatuses,
  listHistory,
  listReleases,
  type ReleaseFilter,
} from './releases.store.ts';

export async function releaseCard(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<ReleaseCardView> {
  const card = await findReleaseCard(ctx.db, workspace.id, id);
  if (!card) throw errors.notFound('Release');
  return presentReleaseCard(card.row, card.tracks, card.dspStatuses, workspace, ctx.config.baseUrl);
}

export async function releasePage(
  ctx: AppContext,
  workspace: Workspace,
  filter: ReleaseFilter,
  sort: ReleaseSort,
  page: PageRequest,
): Promise<{ releases: ReleaseListView[]; total: number }> {
  const { rows, total } = await listReleases(ctx.db, workspace.id, filter, sort, page);
  return { releases: rows.map((row) => presentReleaseListItem(row, workspace, ctx.config.baseUrl)), total };
}

/** 409 when another release of the workspace already carries the UPC. */
async function assertUpcFree(
  db: Db,
  workspace: Workspace,
  upc: string | null,
  releaseId?: number,
): Promise<void> {
  if (upc === null) return;
  const holder = await findReleaseByUpc(db, workspace.id, upc);
  if (holder && holder.id !== releaseId) throw upcTaken(holder.id);
}

function upcTaken(releaseId: number | null) {
  return errors.conflict('Another release of this label has this UPC', {
    field: 'upc',
    ...(releaseId !== null && { release_id: releaseId }),
  });
}

async function translateUpcRace<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw upcTaken(null);
    throw error;
  }
}

function nextSteps(baseUrl: string, id: number): string[] {
  const path = `${baseUrl}/api/v1/releases/${id}`;
  return [
    `PUT ${path}/cover with the cover image (JPG or PNG, square, at least 1400 px; 3000x3000 preferred)`,
    `POST ${path}/tracks for each track: multipart with the audio file (WAV or FLAC) in field "audio" and the track's title`,
    `PUT ${path}/tracks/{trackId}/credits so that every track has at least one contributor`,
    `POST ${path}/submit with {"confirm_rights": true} to send the release to moderation`,
  ];
}

export async function createRelease(
  ctx: AppContext,
  auth: Authenticated,
  body: Static<typeof CreateReleaseBody>,
): Promise<ReleaseCardView & { next_steps: string[] }> {
  const { workspace } = auth;
  const title = requireText('title', body.title);
  const row = {
    type: body.type,
    title,
    title_key: searchKey(title),
    version: body.version?.trim() || null,
    genre: checkGenre(body.genre),
    release_date: calendarDate('release_date', body.release_date),
    original_release_date:
      body.original_release_date == null
        ? null
        : calendarDate('original_release_date', body.original_release_date),
    upc: checkUpc(body.upc ?? null),
    territories: checkTerritories(body.territories ?? 'worldwide'),
    featured_artists: checkFeatured(body.featured_artists ?? []),
  };
  const at = isoNow(ctx.clock);
  const id = await translateUpcRace(() =>
    ctx.db.transaction().execute(async (trx) => {
      await lockLabel(trx, ctx.dialect, workspace.id);
      const artist = await findArtistRow(trx, workspace.id, body.artist_id);
      if (!artist) throw errors.invalid('artist_id', 'No artist with this id in this label');
      await assertUpcFree(trx, workspace, row.upc);
      await enforceLimit(trx, auth.label, 'releases', workspace.id);
      const release = await insertRelease(trx, {
        ...row,
        label_id: workspace.id,
        artist_id: artist.id,
        store_links: '{}',
        status: 'draft',
        review_status: null,
        review_comment: null,
        copied_from: null,
        created_at: at,
        updated_at: at,
        submitted_at: null,
      });
      await insertHistory(trx, { label_id: workspace.id, release_id: release.id, status: 'draft', at });
      return release.id;
    }),
  );
  const card = await releaseCard(ctx, workspace, id);
  return { ...card, next_steps: nextSteps(ctx.config.baseUrl, id) };
}

export async function patchRelease(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
  body: Static<typeof PatchReleaseBody>,
): Promise<ReleaseCardView> {
  await translateUpcRace(() =>
    ctx.db.transaction().execute(async (trx) => {
      const release = await loadRelease(trx, workspace, id);
      assertDraft(release, 'Editing');
      const changes = releaseChanges(body);
      if (changes.upc !== undefined) await assertUpcFree(trx, workspace, changes.upc, id);
      await updateRelease(trx, workspace.id, id, { ...changes, updated_at: isoNow(ctx.clock) });
    }),
  );
  return releaseCard(ctx, workspace, id);
}

/** Drafts, and anything in the sandbox, may be deleted; what was sent to platforms stays. */
export async function removeRelease(ctx: AppContext, workspace: Workspace, id: number): Promise<void> {
  const { cover, audio } = await ctx.db.transaction().execute(async (trx) => {
    // Touching the row first makes a concurrent track upload wait and then find the release gone,
    // so no track (and no file) is added between listing the tracks and the delete.
    await touchRelease(trx, workspace, id, isoNow(ctx.clock));
    const release = await loadRelease(trx, workspace, id);
    if (!workspace.sandbox) assertDraft(release, 'Deleting a release');
    const tracks = await listReleaseTracks(trx, workspace.id, id);
    await deleteRelease(trx, workspace.id, id);
    return {
      cover:
        release.cover_hash && release.cover_format
          ? [{ hash: release.cover_hash, format: release.cover_format }]
          : [],
      audio: tracks.flatMap((track) =>
        track.audio_hash && track.audio_format
          ? [{ hash: track.audio_hash, format: track.audio_format }]
          : [],
      ),
    };
  });
  await removeUnusedMedia(ctx, 'covers', cover);
  await removeUnusedMedia(ctx, 'audio', audio);
}

export async function releaseDspStatuses(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<ReleaseCardView['dsp_statuses']> {
  await loadRelease(ctx.db, workspace, id);
  const rows = await listDspStatuses(ctx.db, workspace.id, id);
  return presentDspStatuses(rows);
}

export async function releaseHistory(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<HistoryView[]> {
  await loadRelease(ctx.db, workspace, id);
  const rows = await listHistory(ctx.db, workspace.id, id);
  return rows.map((row) => ({
    status: row.status,
    review_status: row.review_status,
    comment: row.comment,
    at: row.at,
  }));
}
