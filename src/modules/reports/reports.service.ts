import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import { disabledSmartLinks } from '../smart-links/index.ts';
import { type CatalogHealthBody, ISSUE_LIMIT } from './reports.schemas.ts';
import {
  catalogCounts,
  countReleasesWhere,
  countReleasesWithRemarks,
  countTracksWithoutIsrc,
  type ReleaseIssueRow,
  type ReleaseRemark,
  rejectingDsps,
  releaseRemarks,
  releasesWhere,
  tracksWithoutIsrc,
} from './reports.store.ts';

type CatalogHealthView = Static<typeof CatalogHealthBody>;

/** Score precision: rounded down, so that only a catalog without remarks scores 1. */
const SCORE_PLACES = 10_000;

/** The same day and time a calendar month earlier; the 31st of March is followed back to 28/29 Feb. */
function monthBefore(now: Date): Date {
  const earlier = new Date(now);
  earlier.setUTCDate(1);
  earlier.setUTCMonth(earlier.getUTCMonth() - 1);
  const lastDay = new Date(Date.UTC(earlier.getUTCFullYear(), earlier.getUTCMonth() + 1, 0)).getUTCDate();
  earlier.setUTCDate(Math.min(now.getUTCDate(), lastDay));
  return earlier;
}

function healthScore(releases: number, withRemarks: number): number {
  if (releases === 0) return 1;
  return Math.floor(((releases - withRemarks) / releases) * SCORE_PLACES) / SCORE_PLACES;
}

const releaseItem = (row: ReleaseIssueRow) => ({
  id: row.id,
  title: row.title,
  status: row.status,
});

async function releaseIssue(
  ctx: AppContext,
  workspaceId: number,
  remark: ReleaseRemark,
  staleBefore: string,
) {
  const condition = releaseRemarks(workspaceId, staleBefore)[remark];
  const [count, rows] = await Promise.all([
    countReleasesWhere(ctx.db, workspaceId, condition),
    releasesWhere(ctx.db, workspaceId, condition, ISSUE_LIMIT),
  ]);
  return { count, rows };
}

async function rejectionItems(ctx: AppContext, workspaceId: number, rows: readonly ReleaseIssueRow[]) {
  const dsps = await rejectingDsps(
    ctx.db,
    workspaceId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...releaseItem(row),
    dsps: dsps.filter((status) => status.release_id === row.id).map((status) => status.dsp),
  }));
}

/** GET /reports/catalog-health. */
export async function catalogHealth(ctx: AppContext, workspace: Workspace): Promise<CatalogHealthView> {
  const now = ctx.clock.now();
  const staleBefore = monthBefore(now).toISOString();
  const id = workspace.id;
  const [catalog, withoutUpc, stale, rejections, unlinked, tracksCount, tracks, withRemarks, disabledLinks] =
    await Promise.all([
      catalogCounts(ctx.db, id),
      releaseIssue(ctx, id, 'releases_without_upc', staleBefore),
      releaseIssue(ctx, id, 'stale_drafts', staleBefore),
      releaseIssue(ctx, id, 'dsp_rejections', staleBefore),
      releaseIssue(ctx, id, 'live_without_store_links', staleBefore),
      countTracksWithoutIsrc(ctx.db, id),
      tracksWithoutIsrc(ctx.db, id, ISSUE_LIMIT),
      countReleasesWithRemarks(ctx.db, id, Object.values(releaseRemarks(id, staleBefore))),
      disabledSmartLinks(ctx.db, id, ISSUE_LIMIT),
    ]);
  return {
    generated_at: now.toISOString(),
    catalog,
    score: healthScore(catalog.releases, withRemarks),
    counts: {
      releases_without_upc: withoutUpc.count,
      tracks_without_isrc: tracksCount,
      stale_drafts: stale.count,
      dsp_rejections: rejections.count,
      live_without_store_links: unlinked.count,
      disabled_smart_links: disabledLinks.count,
    },
    issues: {
      releases_without_upc: withoutUpc.rows.map(releaseItem),
      tracks_without_isrc: tracks,
      stale_drafts: stale.rows.map((row) => ({ ...releaseItem(row), created_at: row.created_at })),
      dsp_rejections: await rejectionItems(ctx, id, rejections.rows),
      live_without_store_links: unlinked.rows.map(releaseItem),
      disabled_smart_links: disabledLinks.rows.map((link) => ({ ...link, status: 'disabled' as const })),
    },
  };
}
