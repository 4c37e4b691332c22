import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import type { DspStage } from '../distributor/distributor.stages.ts';
import { presentDspStatuses } from '../releases/releases.presenter.ts';
import { DSP_STAGES } from '../releases/releases.schemas.ts';
import { loadRelease } from '../releases/releases.service.ts';
import { listDspStatuses } from '../releases/releases.store.ts';
import type { ReleaseAnalyticsBody } from './analytics.schemas.ts';

export type ReleaseAnalyticsView = Static<typeof ReleaseAnalyticsBody>;
type PlatformsView = ReleaseAnalyticsView['platforms'];
type SmartLinksView = ReleaseAnalyticsView['smart_links'];

function parseStoreLinks(json: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function platformSummary(statuses: PlatformsView['statuses']): PlatformsView {
  const byStage = Object.fromEntries(DSP_STAGES.map((stage) => [stage, 0])) as Record<DspStage, number>;
  for (const status of statuses) byStage[status.stage] += 1;
  return { total: statuses.length, by_stage: byStage, statuses };
}

/**
 * The release's smart links with their totals. Smart links are not built yet, so there are none:
 * the honest answer is zero and an empty list, in the shape the smart-link issue fills from its
 * table (links whose `release_id` is this release, summed over their counters).
 */
async function releaseSmartLinks(
  _ctx: AppContext,
  _workspace: Workspace,
  _releaseId: number,
): Promise<SmartLinksView> {
  return { total: 0, views: 0, clicks: 0, items: [] };
}

/** GET /analytics/releases/{id}: one release's standing on the platforms and its links. */
export async function releaseAnalytics(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
): Promise<ReleaseAnalyticsView> {
  const release = await loadRelease(ctx.db, workspace, releaseId);
  const [statuses, smartLinks] = await Promise.all([
    listDspStatuses(ctx.db, workspace.id, releaseId),
    releaseSmartLinks(ctx, workspace, releaseId),
  ]);
  return {
    release: {
      id: release.id,
      title: release.title,
      status: release.status as ReleaseAnalyticsView['release']['status'],
      upc: release.upc,
      release_date: release.release_date,
      live_at: release.live_at,
      ...(workspace.sandbox && { sandbox: true as const }),
    },
    review_status: release.review_status as ReleaseAnalyticsView['review_status'],
    platforms: platformSummary(presentDspStatuses(statuses)),
    store_links: parseStoreLinks(release.store_links),
    smart_links: smartLinks,
  };
}
