import type { AppContext } from '../../context.ts';
import { lockLabel } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { divideRounded } from '../../lib/money.ts';
import { seededRandom } from '../../lib/random.ts';
import type { Terms } from '../plans/index.ts';
import { payoutOf } from './finance.money.ts';
import { hasPayouts, insertPayout } from './payouts.store.ts';
import { insertLines } from './royalty-lines.store.ts';
import { firstSellables, type Sellable } from './sales-catalog.store.ts';
import { insertWithdrawal } from './withdrawals.store.ts';

/**
 * Invented, plausible figures for a sandbox: six months of sales of its first releases on five
 * platforms in five countries, a payout per month on the label's terms, and one paid withdrawal.
 * They are made from the label's id and the month they are first asked for, stored once in the
 * sandbox workspace, and read through the same queries as real figures.
 */

const MONTHS = 6;
const RELEASES = 3;

/** Payment per stream in millionths of a dollar: the order of magnitude platforms pay. */
const PLATFORM_RATES: readonly (readonly [string, number])[] = [
  ['spotify', 3_500],
  ['apple_music', 7_000],
  ['youtube_music', 1_800],
  ['amazon_music', 4_000],
  ['deezer', 3_000],
];

/** How much a stream pays in each country, in basis points of the platform's rate. */
const COUNTRY_WEIGHTS: readonly (readonly [string, number])[] = [
  ['US', 10_000],
  ['GB', 9_000],
  ['DE', 8_500],
  ['JP', 8_000],
  ['BR', 3_000],
];

/** The `count` months before the month of `now`, oldest first, as `YYYY-MM`. */
function monthsBefore(now: Date, count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (count - index), 1));
    return month.toISOString().slice(0, 7);
  });
}

function firstOfMonthAfter(period: string): string {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year ?? 1970, month ?? 1, 1)).toISOString();
}

/** Stands in for a sale when the sandbox has no release at all. */
const NO_RELEASE: Sellable = { release_id: 0, upc: '000000000000', track_id: null, isrc: null };

interface InventedLine {
  period: string;
  sellable: Sellable;
  dsp: string;
  country: string;
  quantity: number;
  revenueMicros: number;
}

function inventLines(
  random: () => number,
  months: readonly string[],
  sellables: readonly Sellable[],
): InventedLine[] {
  const lines: InventedLine[] = [];
  months.forEach((period, monthIndex) => {
    for (const sellable of sellables) {
      for (const [dsp, rate] of PLATFORM_RATES) {
        for (const [country, weight] of COUNTRY_WEIGHTS) {
          // Audiences grow month by month, with noise.
          const quantity = Math.floor((200 + random() * 4_000) * (1 + monthIndex / 4));
          const revenueMicros = divideRounded(quantity * rate * weight, 10_000);
          lines.push({ period, sellable, dsp, country, quantity, revenueMicros });
        }
      }
    }
  });
  return lines;
}

async function storeInvented(
  trx: Db,
  workspace: Workspace,
  terms: Terms,
  months: readonly string[],
  lines: readonly InventedLine[],
): Promise<void> {
  await insertLines(
    trx,
    lines.map((line, index) => ({
      label_id: workspace.id,
      statement_id: null,
      line_number: index + 1,
      period: line.period,
      release_id: line.sellable === NO_RELEASE ? null : line.sellable.release_id,
      track_id: line.sellable.track_id,
      upc: line.sellable.upc,
      isrc: line.sellable.isrc,
      dsp: line.dsp,
      country: line.country,
      quantity: line.quantity,
      revenue_micros: line.revenueMicros,
    })),
  );
  const netByMonth: number[] = [];
  for (const period of months) {
    const micros = lines
      .filter((line) => line.period === period)
      .reduce((sum, line) => sum + line.revenueMicros, 0);
    const payout = payoutOf(micros, terms.commission_rate);
    netByMonth.push(payout.netCents);
    await insertPayout(trx, {
      label_id: workspace.id,
      statement_id: null,
      number: `S${workspace.id}-${period.replace('-', '')}`,
      period,
      amount_cents: payout.amountCents,
      commission_rate: payout.commissionRate,
      commission_cents: payout.commissionCents,
      net_cents: payout.netCents,
      applied_at: firstOfMonthAfter(period),
    });
  }
  // Most of the first half-year's earnings, in whole hundreds, drawn after the third payout.
  const firstHalf = netByMonth.slice(0, MONTHS / 2).reduce((sum, cents) => sum + cents, 0);
  const paidCents = Math.floor((firstHalf * 0.8) / 10_000) * 10_000;
  const drawnAt = months[MONTHS / 2];
  if (paidCents > 0 && drawnAt) {
    const at = `${drawnAt}-05T12:00:00.000Z`;
    await insertWithdrawal(trx, {
      label_id: workspace.id,
      amount_cents: paidCents,
      status: 'paid',
      created_at: at,
      updated_at: at,
    });
  }
}

/** Invents the sandbox's figures the first time any of its keys reads finance; later calls find them. */
export async function ensureSandboxFinance(
  ctx: AppContext,
  workspace: Workspace,
  terms: Terms,
): Promise<void> {
  if (await hasPayouts(ctx.db, workspace.id)) return;
  await ctx.db.transaction().execute(async (trx) => {
    await lockLabel(trx, ctx.dialect, workspace.id);
    if (await hasPayouts(trx, workspace.id)) return;
    const months = monthsBefore(ctx.clock.now(), MONTHS);
    const found = await firstSellables(trx, workspace.id, RELEASES);
    const sellables = found.length > 0 ? found : [NO_RELEASE];
    const lines = inventLines(seededRandom(workspace.labelId), months, sellables);
    await storeInvented(trx, workspace, terms, months, lines);
  });
}
