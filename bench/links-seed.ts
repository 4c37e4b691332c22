// A popular smart link's traffic, written through the counters its page writes (addToCounters):
// one call per day with the day's views and their breakdown, and one per platform with its clicks,
// instead of one per visit. The rows and values are those the same visits one by one would leave.

import type { Db } from '../src/db/database.ts';
import type { Dimension } from '../src/db/values.ts';
import { addDays } from '../src/lib/dates.ts';
import { seededRandom } from '../src/lib/random.ts';
import { addToCounters, type BreakdownCount } from '../src/modules/smart-links/link-stats.store.ts';

export interface LinkTraffic {
  views: number;
  /** Days of traffic, the last one today. */
  days: number;
}

export interface SeededTraffic {
  views: number;
  clicks: number;
  dayRows: number;
  breakdownRows: number;
}

export type Shares = ReadonlyArray<readonly [string, number]>;

/** Where the views come from: referring sites, a newsletter's utm_source, and direct. */
export const SOURCES: Shares = [
  ['direct', 0.3],
  ['instagram.com', 0.18],
  ['tiktok.com', 0.14],
  ['t.co', 0.07],
  ['facebook.com', 0.06],
  ['youtube.com', 0.05],
  ['google.com', 0.04],
  ['newsletter', 0.04],
  ['reddit.com', 0.03],
  ['linktr.ee', 0.03],
  ['discord.com', 0.02],
  ['snapchat.com', 0.02],
];
export const DEVICES: Shares = [
  ['mobile', 0.68],
  ['desktop', 0.24],
  ['tablet', 0.06],
  ['other', 0.02],
];
const LANGUAGES: Shares = [
  ['en', 0.38],
  ['es', 0.14],
  ['pt', 0.1],
  ['de', 0.08],
  ['fr', 0.07],
  ['unknown', 0.07],
  ['ru', 0.05],
  ['ja', 0.04],
  ['it', 0.04],
  ['tr', 0.03],
];
/** UTC hours of a mostly European and American audience: busiest in the evening, quiet at dawn. */
export const HOURS: Shares = Array.from({ length: 24 }, (_, hour) => [
  String(hour).padStart(2, '0'),
  1 + 0.7 * Math.cos((2 * Math.PI * (hour - 20)) / 24),
]);
/** The link's platforms, in the order of its buttons, with their share of the clicks. */
export const PLATFORM_SHARES: Shares = [
  ['spotify', 0.42],
  ['apple_music', 0.22],
  ['youtube_music', 0.12],
  ['amazon_music', 0.08],
  ['deezer', 0.06],
  ['tidal', 0.04],
  ['soundcloud', 0.04],
  ['pandora', 0.02],
];
/** The release comes out this many days after the link starts collecting (its pre-save weeks). */
export const DAYS_BEFORE_RELEASE = 14;

/** `total` split in proportion to `weights`, in whole numbers that add up to it (largest remainder). */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((weight) => (total * weight) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((value, i) => [value - Math.floor(value), i] as const)
    .sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left === 0) break;
    parts[i] = (parts[i] ?? 0) + 1;
    left--;
  }
  return parts;
}

/** The shares as they come out on one day: each a little more or less than usual. */
function jittered(shares: Shares, random: () => number): number[] {
  return shares.map(([, share]) => share * (0.8 + 0.4 * random()));
}

/** A few weeks of pre-save build-up, a peak on release day, a long tail, busier weekends. */
export function dayWeight(index: number, day: string, random: () => number): number {
  const sinceRelease = index - DAYS_BEFORE_RELEASE;
  const base = sinceRelease < 0 ? 0.3 + 0.05 * index : 0.25 + 4 * Math.exp(-sinceRelease / 21);
  const weekday = new Date(`${day}T00:00:00.000Z`).getUTCDay();
  const weekend = weekday === 0 || weekday === 5 || weekday === 6 ? 1.15 : 1;
  return base * weekend * (0.85 + 0.3 * random());
}

export function breakdownOf(dimension: Dimension, shares: Shares, total: number, random: () => number) {
  return apportion(total, jittered(shares, random)).flatMap((count, i): BreakdownCount[] => {
    const value = shares[i]?.[0];
    return count > 0 && value !== undefined ? [{ dimension, value, count }] : [];
  });
}

/**
 * Writes `traffic.views` views spread over `traffic.days` days ending on `lastDay`, with about a
 * third as many clicks, each day in one transaction; `targetIds` are the link's targets by platform.
 */
export async function seedLinkTraffic(
  db: Db,
  link: { id: number; label_id: number },
  targetIds: ReadonlyMap<string, number>,
  traffic: LinkTraffic,
  lastDay: string,
  progress: (daysDone: number) => void,
): Promise<SeededTraffic> {
  const random = seededRandom(2024);
  const firstDay = addDays(lastDay, 1 - traffic.days);
  const days = Array.from({ length: traffic.days }, (_, i) => addDays(firstDay, i));
  const viewsPerDay = apportion(
    traffic.views,
    days.map((day, i) => dayWeight(i, day, random)),
  );
  const seeded: SeededTraffic = { views: 0, clicks: 0, dayRows: 0, breakdownRows: 0 };
  for (const [i, day] of days.entries()) {
    const views = viewsPerDay[i] ?? 0;
    const breakdown = [
      ...breakdownOf('source', SOURCES, views, random),
      ...breakdownOf('device', DEVICES, views, random),
      ...breakdownOf('language', LANGUAGES, views, random),
      ...breakdownOf('hour', HOURS, views, random),
    ];
    const clicks = breakdownOf(
      'platform',
      PLATFORM_SHARES,
      Math.round(views * (0.3 + 0.15 * random())),
      random,
    );
    await db.transaction().execute(async (trx) => {
      await addToCounters(trx, link, { day, views, clicks: 0, targetId: null, breakdown });
      for (const click of clicks) {
        const targetId = targetIds.get(click.value);
        if (targetId === undefined) throw new Error(`the link has no target on ${click.value}`);
        await addToCounters(trx, link, { day, views: 0, clicks: click.count, targetId, breakdown: [click] });
      }
    });
    seeded.views += views;
    seeded.clicks += clicks.reduce((sum, click) => sum + click.count, 0);
    seeded.dayRows += 1;
    seeded.breakdownRows += breakdown.length + clicks.length;
    progress(i + 1);
  }
  return seeded;
}
