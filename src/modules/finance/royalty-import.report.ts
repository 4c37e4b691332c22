import { dollars, dollarsOfMicros } from '../../lib/money.ts';
import type { PayoutRow } from './payouts.store.ts';
import type { StatementRow, UnmatchedLineRow } from './statements.store.ts';

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

/** What an import changed, or found already done: the statement, its payouts and its unmatched lines. */
export function importReport(
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

export function presentUnmatched(line: UnmatchedLineRow): UnmatchedLineView {
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
