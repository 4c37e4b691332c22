import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { findLabel } from '../../core/labels.ts';
import { nextInSequence } from '../../core/sequences.ts';
import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/portable.ts';
import type { RoyaltyLinesTable, RoyaltyUnmatchedLinesTable } from '../../db/schema.ts';
import { errors } from '../../errors.ts';
import { dollars, dollarsOfMicros } from '../../lib/money.ts';
import { termsOf } from '../plans/index.ts';
import { type Payout, payoutOf } from './finance.money.ts';
import {
  findStatement,
  findStatementByHash,
  insertLines,
  insertPayout,
  insertStatement,
  insertUnmatchedLines,
  listUnmatchedLines,
  type PayoutRow,
  payoutsOfStatement,
  type ReleaseMatch,
  releasesByUpc,
  type StatementRow,
  type TrackMatch,
  tracksByIsrc,
  type UnmatchedLineRow,
  unmatchedLinesOf,
} from './finance.store.ts';
import { parseStatement, type StatementLine } from './statement.parser.ts';

/** What `labeldesk finance import --json` prints. */
export interface ImportReport {
  /** True when this very file was imported before: nothing changed. */
  already_imported: boolean;
  statement: {
    id: number;
    file_name: string;
    content_hash: string;
    lines: number;
    matched: number;
    unmatched: number;
    revenue: number;
    imported_at: string;
  };
  payouts: {
    label_id: number;
    number: string;
    period: string;
    amount: number;
    commission_rate: number;
    commission: number;
    net_amount: number;
  }[];
  unmatched_lines: UnmatchedLineView[];
}

export interface UnmatchedLineView {
  statement_id: number;
  line: number;
  period: string;
  upc: string | null;
  isrc: string | null;
  dsp: string;
  country: string;
  quantity: number;
  revenue: number;
  reason: string;
}

interface Owner {
  labelId: number;
  releaseId: number;
  trackId: number | null;
}

type Match = { owner: Owner } | { reason: string };

/** A UPC-A and the EAN-13 that is the same code with a leading zero name one product. */
function upcSpellings(upc: string): string[] {
  if (upc.length === 12) return [upc, `0${upc}`];
  if (upc.startsWith('0')) return [upc, upc.slice(1)];
  return [upc];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const name = key(item);
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  return groups;
}

function distinctLabels(matches: readonly { label_id: number }[]): number {
  return new Set(matches.map((match) => match.label_id)).size;
}

/**
 * Matches each line to the label that owns it: by ISRC to a track (the finer match), else by UPC
 * to a release. A code found in more than one label is paid to no one and left to the operator.
 */
class LineMatcher {
  private constructor(
    private readonly tracks: Map<string, TrackMatch[]>,
    private readonly releases: Map<string, ReleaseMatch[]>,
  ) {}

  static async load(db: Db, lines: readonly StatementLine[]): Promise<LineMatcher> {
    const isrcs = [...new Set(lines.flatMap((line) => (line.isrc ? [line.isrc] : [])))];
    const upcs = [...new Set(lines.flatMap((line) => (line.upc ? upcSpellings(line.upc) : [])))];
    const tracks = await tracksByIsrc(db, isrcs);
    const releases = await releasesByUpc(db, upcs);
    return new LineMatcher(
      groupBy(tracks, (track) => track.isrc),
      groupBy(releases, (release) => release.upc),
    );
  }

  match(line: StatementLine): Match {
    const byTrack = line.isrc ? this.byIsrc(line.isrc, line.upc) : undefined;
    if (byTrack) return byTrack;
    const byRelease = line.upc ? this.byUpc(line.upc) : undefined;
    if (byRelease) return byRelease;
    return { reason: 'no release with this UPC and no track with this ISRC' };
  }

  private byIsrc(isrc: string, upc: string | null): Match | undefined {
    const tracks = this.tracks.get(isrc) ?? [];
    const [first] = tracks;
    if (!first) return undefined;
    if (distinctLabels(tracks) > 1) return { reason: `ISRC ${isrc} is on tracks of more than one label` };
    const spellings = upc ? upcSpellings(upc) : [];
    // An ISRC on a single and on an album: the line's UPC says which release sold.
    const track = tracks.find((candidate) => spellings.includes(candidate.release_upc ?? '')) ?? first;
    return { owner: { labelId: track.label_id, releaseId: track.release_id, trackId: track.track_id } };
  }

  private byUpc(upc: string): Match | undefined {
    const releases = upcSpellings(upc).flatMap((spelling) => this.releases.get(spelling) ?? []);
    const [first] = releases;
    if (!first) return undefined;
    if (distinctLabels(releases) > 1) return { reason: `UPC ${upc} is on releases of more than one label` };
    return { owner: { labelId: first.label_id, releaseId: first.release_id, trackId: null } };
  }
}

function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw errors.invalid('file', 'the statement is not UTF-8 text');
  }
}

/** Payout numbers read as the month and a running number: `202603-000042`. */
function payoutNumber(period: string, sequence: number): string {
  return `${period.replace('-', '')}-${String(sequence).padStart(6, '0')}`;
}

interface Split {
  matched: Insertable<RoyaltyLinesTable>[];
  unmatched: Omit<Insertable<RoyaltyUnmatchedLinesTable>, 'statement_id'>[];
}

function split(lines: readonly StatementLine[], matcher: LineMatcher): Split {
  const result: Split = { matched: [], unmatched: [] };
  for (const line of lines) {
    const match = matcher.match(line);
    const common = {
      line_number: line.line,
      period: line.period,
      upc: line.upc,
      isrc: line.isrc,
      dsp: line.dsp,
      country: line.country,
      quantity: line.quantity,
      revenue_micros: line.revenueMicros,
    };
    if ('reason' in match) {
      result.unmatched.push({ ...common, reason: match.reason });
    } else {
      result.matched.push({
        ...common,
        label_id: match.owner.labelId,
        statement_id: null,
        release_id: match.owner.releaseId,
        track_id: match.owner.trackId,
      });
    }
  }
  return result;
}

async function commissionRateOf(trx: Db, labelId: number): Promise<number> {
  const label = await findLabel(trx, labelId);
  if (!label) throw new Error(`label ${labelId} vanished during the import`);
  return termsOf(label).commission_rate;
}

/** One payout per label and month of the statement, the label's commission rate taken today. */
async function createPayouts(
  trx: Db,
  statementId: number,
  matched: readonly Insertable<RoyaltyLinesTable>[],
  at: string,
): Promise<void> {
  const groups = groupBy(matched, (line) => `${line.label_id}|${line.period}`);
  const rates = new Map<number, number>();
  for (const lines of groups.values()) {
    const [first] = lines;
    if (!first) continue;
    const rate = rates.get(first.label_id) ?? (await commissionRateOf(trx, first.label_id));
    rates.set(first.label_id, rate);
    const micros = lines.reduce((sum, line) => sum + Number(line.revenue_micros), 0);
    const payout: Payout = payoutOf(micros, rate);
    await insertPayout(trx, {
      label_id: first.label_id,
      statement_id: statementId,
      number: payoutNumber(first.period, await nextInSequence(trx, 'payout')),
      period: first.period,
      amount_cents: payout.amountCents,
      commission_rate: payout.commissionRate,
      commission_cents: payout.commissionCents,
      net_cents: payout.netCents,
      applied_at: at,
    });
  }
}

function report(
  statement: StatementRow,
  payouts: readonly PayoutRow[],
  unmatched: readonly UnmatchedLineRow[],
  alreadyImported: boolean,
): ImportReport {
  return {
    already_imported: alreadyImported,
    statement: {
      id: statement.id,
      file_name: statement.file_name,
      content_hash: statement.content_hash,
      lines: statement.line_count,
      matched: statement.matched_count,
      unmatched: statement.line_count - statement.matched_count,
      revenue: dollarsOfMicros(Number(statement.revenue_micros)),
      imported_at: statement.imported_at,
    },
    payouts: payouts.map((payout) => ({
      label_id: payout.label_id,
      number: payout.number,
      period: payout.period,
      amount: dollars(Number(payout.amount_cents)),
      commission_rate: payout.commission_rate,
      commission: dollars(Number(payout.commission_cents)),
      net_amount: dollars(Number(payout.net_cents)),
    })),
    unmatched_lines: unmatched.map(presentUnmatched),
  };
}

function presentUnmatched(line: UnmatchedLineRow): UnmatchedLineView {
  return {
    statement_id: line.statement_id,
    line: line.line_number,
    period: line.period,
    upc: line.upc,
    isrc: line.isrc,
    dsp: line.dsp,
    country: line.country,
    quantity: Number(line.quantity),
    revenue: dollarsOfMicros(Number(line.revenue_micros)),
    reason: line.reason,
  };
}

/** Most unmatched lines `labeldesk finance unmatched` prints without `--statement`. */
const UNMATCHED_LISTED = 1000;

/** `labeldesk finance unmatched`: what no label was paid for, one statement's or the latest ones'. */
export async function unmatchedLines(ctx: AppContext, statementId?: number): Promise<UnmatchedLineView[]> {
  if (statementId === undefined)
    return (await listUnmatchedLines(ctx.db, UNMATCHED_LISTED)).map(presentUnmatched);
  if (!(await findStatement(ctx.db, statementId))) throw errors.notFound(`Statement ${statementId}`);
  return (await unmatchedLinesOf(ctx.db, statementId)).map(presentUnmatched);
}

async function reportOfStored(db: Db, statement: StatementRow): Promise<ImportReport> {
  return report(
    statement,
    await payoutsOfStatement(db, statement.id),
    await unmatchedLinesOf(db, statement.id),
    true,
  );
}

/**
 * `labeldesk finance import FILE.csv`: the whole statement in one transaction (lines, unmatched
 * lines, payouts), or nothing when a line is malformed. The same bytes again change nothing.
 */
export async function importStatement(
  ctx: AppContext,
  fileName: string,
  bytes: Uint8Array,
): Promise<ImportReport> {
  const hash = contentHash(bytes);
  const known = await findStatementByHash(ctx.db, hash);
  if (known) return reportOfStored(ctx.db, known);
  const lines = parseStatement(utf8Text(bytes));
  const at = ctx.clock.now().toISOString();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const { matched, unmatched } = split(lines, await LineMatcher.load(trx, lines));
      const statement = await insertStatement(trx, {
        content_hash: hash,
        file_name: basename(fileName),
        line_count: lines.length,
        matched_count: matched.length,
        revenue_micros: lines.reduce((sum, line) => sum + line.revenueMicros, 0),
        imported_at: at,
      });
      await insertLines(
        trx,
        matched.map((line) => ({ ...line, statement_id: statement.id })),
      );
      await insertUnmatchedLines(
        trx,
        unmatched.map((line) => ({ ...line, statement_id: statement.id })),
      );
      await createPayouts(trx, statement.id, matched, at);
      return report(
        statement,
        await payoutsOfStatement(trx, statement.id),
        await unmatchedLinesOf(trx, statement.id),
        false,
      );
    });
  } catch (error) {
    // The same file imported at the same moment by another operator: theirs stands.
    const stored = isUniqueViolation(error) ? await findStatementByHash(ctx.db, hash) : undefined;
    if (stored) return reportOfStored(ctx.db, stored);
    throw error;
  }
}
