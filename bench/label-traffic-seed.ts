// A busy label's smart-link traffic: links that each collected a year of views and clicks, written
// through the counters their pages write (addToCounters, one call per link and day, which also adds
// to the label's rollups), with the cardinality a label sees each day: a dozen sources, the four
// devices, 20 languages, 24 hours and 5 platforms.
import type { AppContext } from '../src/context.ts';
import { addDays, utcDay } from '../src/lib/dates.ts';
import { seededRandom } from '../src/lib/random.ts';
import { authenticateKey } from '../src/modules/keys/keys.service.ts';
import { isPlatformKey } from '../src/modules/platforms/platforms.catalog.ts';
import { addToCounters } from '../src/modules/smart-links/link-stats.store.ts';
import { createSmartLink } from '../src/modules/smart-links/smart-links.service.ts';
import { at } from './in-process.ts';
import {
  breakdownOf,
  DEVICES,
  dayWeight,
  HOURS,
  PLATFORM_SHARES,
  type Shares,
  SOURCES,
} from './links-seed.ts';

const LANGUAGES: Shares = [
  ['en', 0.3],
  ['es', 0.12],
  ['pt', 0.08],
  ['de', 0.07],
  ['fr', 0.06],
  ['unknown', 0.05],
  ['ru', 0.04],
  ['ja', 0.04],
  ['it', 0.03],
  ['tr', 0.03],
  ['pl', 0.03],
  ['nl', 0.025],
  ['ko', 0.025],
  ['sv', 0.02],
  ['id', 0.02],
  ['ar', 0.02],
  ['zh', 0.02],
  ['uk', 0.015],
  ['cs', 0.01],
  ['fi', 0.01],
];
const PLATFORMS = PLATFORM_SHARES.slice(0, 5);

export interface LabelTraffic {
  links: number;
  /** Each link's views over its year. */
  viewsPerLink: number;
  days: number;
}

export interface SeededLabel {
  views: number;
  clicks: number;
  linkDayRows: number;
  linkBreakdownRows: number;
}

async function createLink(ctx: AppContext, key: string, index: number, firstDay: string) {
  const auth = await authenticateKey(ctx, key);
  if (!auth) throw new Error('the bench key does not authenticate');
  const then = at(ctx, new Date(`${firstDay}T09:00:00.000Z`));
  return createSmartLink(then, auth, {
    title: `Single ${index + 1}`,
    artist_name: 'Mira Vale',
    release_date: addDays(firstDay, 14),
    targets: PLATFORMS.map(([platform]) => {
      if (!isPlatformKey(platform)) throw new Error(`${platform} is not a platform key`);
      return { platform, url: `https://example.com/${platform}/single-${index + 1}` };
    }),
  });
}

/** One link's year, a day per call, in one transaction; its views scaled so links differ. */
async function seedLink(
  ctx: AppContext,
  link: { id: number; label_id: number },
  days: readonly string[],
  views: number,
  seed: number,
): Promise<SeededLabel> {
  const random = seededRandom(seed);
  const weights = days.map((day, i) => dayWeight(i, day, random));
  const total = weights.reduce((a, b) => a + b, 0);
  const seeded: SeededLabel = { views: 0, clicks: 0, linkDayRows: 0, linkBreakdownRows: 0 };
  await ctx.db.transaction().execute(async (trx) => {
    for (const [i, day] of days.entries()) {
      const dayViews = Math.round((views * (weights[i] ?? 0)) / total);
      const clicks = breakdownOf('platform', PLATFORMS, Math.round(dayViews * 0.35), random);
      const breakdown = [
        ...breakdownOf('source', SOURCES, dayViews, random),
        ...breakdownOf('device', DEVICES, dayViews, random),
        ...breakdownOf('language', LANGUAGES, dayViews, random),
        ...breakdownOf('hour', HOURS, dayViews, random),
        ...clicks,
      ];
      const dayClicks = clicks.reduce((sum, click) => sum + click.count, 0);
      // The platform rows carry the clicks; the targets' own counters are not what this bench reads.
      await addToCounters(trx, link, { day, views: dayViews, clicks: dayClicks, targetId: null, breakdown });
      seeded.views += dayViews;
      seeded.clicks += dayClicks;
      seeded.linkDayRows += 1;
      seeded.linkBreakdownRows += breakdown.length;
    }
  });
  return seeded;
}

/** `traffic.links` links, each collecting from the first of `traffic.days` days ending today. */
export async function seedLabelTraffic(
  ctx: AppContext,
  prepared: { labelId: number; key: string },
  traffic: LabelTraffic,
  progress: (linksDone: number) => void,
): Promise<SeededLabel> {
  const today = utcDay(ctx.clock.now());
  const firstDay = addDays(today, 1 - traffic.days);
  const days = Array.from({ length: traffic.days }, (_, i) => addDays(firstDay, i));
  const total: SeededLabel = { views: 0, clicks: 0, linkDayRows: 0, linkBreakdownRows: 0 };
  for (let i = 0; i < traffic.links; i++) {
    const link = await createLink(ctx, prepared.key, i, firstDay);
    // The busiest link has about six times the views of the quietest.
    const views = Math.round(traffic.viewsPerLink * (0.3 + (1.7 * (traffic.links - i)) / traffic.links));
    const seeded = await seedLink(ctx, { id: link.id, label_id: prepared.labelId }, days, views, 2024 + i);
    total.views += seeded.views;
    total.clicks += seeded.clicks;
    total.linkDayRows += seeded.linkDayRows;
    total.linkBreakdownRows += seeded.linkBreakdownRows;
    progress(i + 1);
  }
  return total;
}
