import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import type { DspStage } from '../distributor/distributor.stages.ts';
import { parseJson, presentDspStatuses } from '../releases/releases.presenter.ts';
import { DSP_STAGES } from '../releases/releases.schemas.ts';
import { loadRelease } from '../releases/releases.service.ts';
import { listDspStatuses } from '../releases/releases.store.ts';
import type { ReleaseAnalyticsBody } from './analytics.schemas.ts';

export type ReleaseAnalyticsView = Static<typeof ReleaseAnalyticsBody>;
type PlatformsView = ReleaseAnalyticsView['platforms'];
type SmartLinksView = ReleaseAnalyticsView['smart_links'];

function platformSummary(statuses: PlatformsView['statuses']): PlatformsView {
  const byStage = Object.fromEntries(DSP_STAGES.map((stage) => [stage, 0])) as Record<DspStage, number>;
  for (const status of statuses) byStage[status.stage] += 1;
  return { total: statuses.length, by_stage: byStage, statuses };
}

/**
 * Smart links are not built yet, so a release has none: the honest answer is zero and an empty
 * list, in the shape the smart-link issue fills from its table (links whose `release_id` is this
 * release, summed over their counters).
 */
const NO_SMART_LINKS: SmartLinksView = { total: 0, views: 0, clicks: 0, items: [] };

/** GET /analytics/releases/{id}: one release's standing on the platforms and its links. */
export async function releaseAnalytics(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
): Promise<ReleaseAnalyticsView> {
  const release = await loadRelease(ctx.db, workspace, releaseId);
  const statuses = await listDspStatuses(ctx.db, workspace.id, releaseId);
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
    store_links: parseJson<Record<string, string>>(release.store_links, {}),
    smart_links: NO_SMART_LINKS,
  };
}
