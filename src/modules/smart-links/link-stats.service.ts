import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import type { Dimension } from '../../db/values.ts';
import { daysBetween, utcDay } from '../../lib/dates.ts';
import { percent } from '../../lib/percent.ts';
import { platformName } from '../platforms/index.ts';
import { flushPendingCounts } from './link-counts.ts';
import { type BreakdownCount, breakdownOfLink, type DayCount, daysOfLink } from './link-stats.store.ts';
import type { LinkStatsView } from './smart-links.schemas.ts';
import { loadSmartLink } from './smart-links.service.ts';

/** Counts per day over `days`, with 0 for a day that has none. */
export function dailySeries(days: readonly string[], counts: readonly DayCount[]) {
  const byDay = new Map(counts.map((count) => [count.day, count]));
  return days.map((date) => ({
    date,
    views: byDay.get(date)?.views ?? 0,
    clicks: byDay.get(date)?.clicks ?? 0,
  }));
}

/** One dimension's values, most first (then by value, so equal counts keep one order). */
export function ranked(
  counts: readonly BreakdownCount[],
  dimension: Dimension,
): { value: string; count: number }[] {
  return counts
    .filter((count) => count.dimension === dimension)
    .map(({ value, count }) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
}

/** GET /smart-links/{id}/stats: totals from the link's own counters, breakdowns from the per-day ones. */
export async function linkStats(ctx: AppContext, workspace: Workspace, id: number): Promise<LinkStatsView> {
  await flushPendingCounts(ctx, workspace.id);
  const link = await loadSmartLink(ctx.db, workspace, id);
  const [days, breakdown] = await Promise.all([
    daysOfLink(ctx.db, workspace.id, link.id),
    breakdownOfLink(ctx.db, workspace.id, link.id),
  ]);
  const views = Number(link.views);
  const clicks = Number(link.clicks);
  const platforms = ranked(breakdown, 'platform');
  const platformClicks = platforms.reduce((sum, platform) => sum + platform.count, 0);
  return {
    totals: { views, clicks, rate_percent: percent(clicks, views), presaves: Number(link.presaves) },
    collecting_since: link.collecting_since,
    days: dailySeries(daysBetween(utcDay(new Date(link.collecting_since)), utcDay(ctx.clock.now())), days),
    platforms: platforms.map(({ value, count }) => ({
      platform: value,
      title: platformName(value),
      clicks: count,
      share_percent: percent(count, platformClicks),
    })),
    sources: ranked(breakdown, 'source').map(({ value, count }) => ({ source: value, views: count })),
    devices: ranked(breakdown, 'device').map(({ value, count }) => ({
      device: value as LinkStatsView['devices'][number]['device'],
      views: count,
    })),
    languages: ranked(breakdown, 'language').map(({ value, count }) => ({ language: value, views: count })),
  };
}
