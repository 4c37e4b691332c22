import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import { loadRelease } from '../../core/releases.ts';
import { readJson } from '../../db/json-column.ts';
import type { Workspace } from '../../db/scope.ts';
import { DSP_STAGES, type DspStage, RELEASE_STATUSES } from '../../db/values.ts';
import { addDays, daysBetween, utcDay } from '../../lib/dates.ts';
import { percent } from '../../lib/percent.ts';

import { listDspStatuses, presentDspStatuses, releaseCountsByStatus } from '../releases/index.ts';
import {
  breakdownOfLabel,
  type Device,
  dailySeries,
  daysOfLabel,
  ranked,
  smartLinksOfRelease,
  smartLinkTotalCount,
  smartLinkUrl,
  topLinksOfLabel,
} from '../smart-links/index.ts';
import type { ReleaseAnalyticsBody, SummaryBody, TrafficBody } from './analytics.schemas.ts';

export type ReleaseAnalyticsView = Static<typeof ReleaseAnalyticsBody>;
type PlatformsView = ReleaseAnalyticsView['platforms'];
type SmartLinksView = ReleaseAnalyticsView['smart_links'];

function platformSummary(statuses: PlatformsView['statuses']): PlatformsView {
  const byStage = Object.fromEntries(DSP_STAGES.map((stage) => [stage, 0])) as Record<DspStage, number>;
  for (const status of statuses) byStage[status.stage] += 1;
  return { total: statuses.length, by_stage: byStage, statuses };
}

/** The links made for the release, with their all-time views and clicks summed. */
async function releaseSmartLinks(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
): Promise<SmartLinksView> {
  const links = await smartLinksOfRelease(ctx.db, workspace.id, releaseId);
  const items = links.map((link) => ({
    id: link.id,
    title: link.title,
    url: smartLinkUrl(ctx.config, link),
    enabled: link.enabled === 1,
    views: Number(link.views),
    clicks: Number(link.clicks),
  }));
  return {
    total: items.length,
    views: items.reduce((sum, item) => sum + item.views, 0),
    clicks: items.reduce((sum, item) => sum + item.clicks, 0),
    items,
  };
}

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
      status: release.status,
      upc: release.upc,
      release_date: release.release_date,
      live_at: release.live_at,
      ...(workspace.sandbox && { sandbox: true as const }),
    },
    review_status: release.review_status,
    platforms: platformSummary(presentDspStatuses(statuses)),
    store_links: readJson(release.store_links),
    smart_links: await releaseSmartLinks(ctx, workspace, releaseId),
  };
}

export type SummaryView = Static<typeof SummaryBody>;
export type TrafficView = Static<typeof TrafficBody>;

const TOP_LINKS = 10;

/** The period of `days` UTC days that ends today: its days, oldest first. */
function periodDays(ctx: AppContext, days: number): string[] {
  const today = utcDay(ctx.clock.now());
  return daysBetween(addDays(today, 1 - days), today);
}

async function releasesByStatus(ctx: AppContext, workspace: Workspace): Promise<SummaryView['releases']> {
  const counts = await releaseCountsByStatus(ctx.db, workspace.id);
  const byStatus = Object.fromEntries(RELEASE_STATUSES.map((status) => [status, counts.get(status) ?? 0]));
  return {
    total: [...counts.values()].reduce((sum, n) => sum + n, 0),
    by_status: byStatus as SummaryView['releases']['by_status'],
  };
}

/** GET /analytics/summary: releases by status, and the label's smart links over the period. */
export async function labelSummary(
  ctx: AppContext,
  workspace: Workspace,
  days: number,
): Promise<SummaryView> {
  const period = periodDays(ctx, days);
  const from = period[0] ?? utcDay(ctx.clock.now());
  const [releases, linkCount, daily, top] = await Promise.all([
    releasesByStatus(ctx, workspace),
    smartLinkTotalCount(ctx.db, workspace.id),
    daysOfLabel(ctx.db, workspace.id, from),
    topLinksOfLabel(ctx.db, workspace.id, from, TOP_LINKS),
  ]);
  const views = daily.reduce((sum, day) => sum + day.views, 0);
  const clicks = daily.reduce((sum, day) => sum + day.clicks, 0);
  const presaves = daily.reduce((sum, day) => sum + day.presaves, 0);
  return {
    period_days: days,
    releases,
    smart_links: { total: linkCount, views, clicks, presaves, rate_percent: percent(clicks, views) },
    daily: dailySeries(period, daily),
    top_links: top,
  };
}

/** GET /analytics/traffic: where the label's page views came from over the period. */
export async function labelTraffic(
  ctx: AppContext,
  workspace: Workspace,
  days: number,
): Promise<TrafficView> {
  const from = periodDays(ctx, days)[0] ?? utcDay(ctx.clock.now());
  const [breakdown, top] = await Promise.all([
    breakdownOfLabel(ctx.db, workspace.id, ['source', 'device', 'language', 'hour'], from),
    topLinksOfLabel(ctx.db, workspace.id, from, TOP_LINKS),
  ]);
  const hours = new Map(ranked(breakdown, 'hour').map(({ value, count }) => [Number(value), count]));
  return {
    period_days: days,
    sources: ranked(breakdown, 'source').map(({ value, count }) => ({ source: value, views: count })),
    devices: ranked(breakdown, 'device').map(({ value, count }) => ({
      device: value as Device,
      views: count,
    })),
    languages: ranked(breakdown, 'language').map(({ value, count }) => ({ language: value, views: count })),
    hours_utc: Array.from({ length: 24 }, (_, hour) => ({ hour, views: hours.get(hour) ?? 0 })),
    top_links: top.map(({ id, title, views }) => ({ id, title, views })),
  };
}
