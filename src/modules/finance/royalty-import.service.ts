import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { findLabel } from '../../core/labels.ts';
import { nextInSequence } from '../../core/sequences.ts';
import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/portable.ts';
import type { RoyaltyLinesTable } from '../../db/schema.ts';
import { errors } from '../../errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import { termsOf } from '../plans/index.ts';
import { type Payout, payoutOf } from './finance.money.ts';
import { insertPayout, payoutsOfStatement } from './payouts.store.ts';
import {
  type ImportReport,
  importReport,
  presentUnmatched,
  type UnmatchedLineView,
} from './royalty-import.report.ts';
import { insertLines } from './royalty-lines.store.ts';
import { matchLines } from './statement.matcher.ts';
import { parseStatement } from './statement.parser.ts';
import {
  findStatement,
  findStatementByHash,
  insertStatement,
  insertUnmatchedLines,
  listUnmatchedLines,
  type StatementRow,
  unmatchedLinesOf,
} from './statements.store.ts';

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
  return importReport(
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
      const { matched, unmatched } = await matchLines(trx, lines);
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
      return importReport(
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
