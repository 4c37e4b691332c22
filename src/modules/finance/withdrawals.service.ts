import type { AppContext } from '../../context.ts';
import { findLabel, lockLabel } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { WITHDRAWAL_STATUSES, type WithdrawalStatus } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { dollars, formatDollars, parseDecimal } from '../../lib/money.ts';
import { workspaceOwning } from '../labels/index.ts';
import { balanceSums } from './balances.store.ts';
import { type Balance, balanceOf } from './finance.money.ts';

import {
  insertWithdrawal,
  lockWithdrawal,
  setWithdrawalStatus,
  type WithdrawalRow,
} from './withdrawals.store.ts';

/**
 * `pending` -> `processing` -> `paid`, or `rejected`; nothing after the end. A pending request may
 * be rejected too: returns in a later statement can leave the balance short of it, and it must
 * not then block the label's requests for good.
 */
const NEXT_STATUSES: Record<WithdrawalStatus, readonly WithdrawalStatus[]> = {
  pending: ['processing', 'rejected'],
  processing: ['paid', 'rejected'],
  paid: [],
  rejected: [],
};

/** Statuses of a withdrawal the label is still waiting for. */
export const OPEN_WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = ['pending', 'processing'];

/** A withdrawal as the operator sees it (`labeldesk finance withdrawal ... --json`). */
export interface OperatorWithdrawal {
  id: number;
  label_id: number;
  amount: number;
  status: WithdrawalStatus;
  created_at: string;
  updated_at: string;
}

export interface OperatorBalance {
  available: number;
  earned: number;
  withdrawn: number;
  processing: number;
}

export interface WithdrawalOutcome {
  withdrawal: OperatorWithdrawal;
  balance: OperatorBalance;
}

function isWithdrawalStatus(value: string): value is WithdrawalStatus {
  return (WITHDRAWAL_STATUSES as readonly string[]).includes(value);
}

function presentForOperator(row: WithdrawalRow): OperatorWithdrawal {
  return {
    id: row.id,
    label_id: row.label_id,
    amount: dollars(Number(row.amount_cents)),
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function presentBalance(balance: Balance): OperatorBalance {
  return {
    available: dollars(balance.availableCents),
    earned: dollars(balance.earnedCents),
    withdrawn: dollars(balance.withdrawnCents),
    processing: dollars(balance.processingCents),
  };
}

function amountInCents(text: string): number {
  const cents = parseDecimal(text, 2);
  if (cents === null || cents <= 0) {
    throw errors.invalid(
      'amount',
      `amount "${text}" is not a sum of dollars above zero with at most two decimals`,
    );
  }
  return cents;
}

async function realLabel(db: Db, labelId: number): Promise<number> {
  const label = await findLabel(db, labelId);
  if (!label) throw errors.notFound(`Label ${labelId}`);
  if (label.parent_id !== null) throw errors.invalid('label', 'Name the label itself, not its sandbox');
  return label.id;
}

/**
 * `labeldesk finance withdrawal create`: a `pending` request the label's balance covers. What
 * other pending requests already ask for is set aside too, so that requests never promise more
 * than was earned. The label row is held, so two requests are weighed one after the other.
 */
export async function createWithdrawal(
  ctx: AppContext,
  labelId: number,
  amountText: string,
): Promise<WithdrawalOutcome> {
  const cents = amountInCents(amountText);
  const minimum = ctx.config.minWithdrawalCents;
  if (cents < minimum) {
    throw errors.invalid(
      'amount',
      `${formatDollars(cents)} is under the minimum withdrawal of ${formatDollars(minimum)}`,
    );
  }
  return ctx.db.transaction().execute(async (trx) => {
    const id = await realLabel(trx, labelId);
    await lockLabel(trx, ctx.dialect, id);
    const sums = await balanceSums(trx, id);
    const balance = balanceOf(sums);
    const free = balance.availableCents - sums.pending;
    if (cents > free) {
      const requested =
        sums.pending > 0 ? `, of which ${formatDollars(sums.pending)} is already requested` : '';
      throw errors.invalid(
        'amount',
        `${formatDollars(cents)} is over the available balance of ${formatDollars(balance.availableCents)}${requested}`,
      );
    }
    const at = ctx.clock.now().toISOString();
    const row = await insertWithdrawal(trx, {
      label_id: id,
      amount_cents: cents,
      status: 'pending',
      created_at: at,
      updated_at: at,
    });
    return { withdrawal: presentForOperator(row), balance: presentBalance(balance) };
  });
}

async function withdrawalWorkspace(db: Db, id: number): Promise<Workspace> {
  const workspace = await workspaceOwning(db, 'withdrawals', id);
  if (!workspace) throw errors.notFound(`Withdrawal ${id}`);
  if (workspace.sandbox)
    throw errors.conflict(`Withdrawal ${id} is invented for a sandbox: there is nothing to pay`);
  return workspace;
}

function assertMove(row: WithdrawalRow, to: WithdrawalStatus): void {
  const from = row.status;
  if (NEXT_STATUSES[from].includes(to)) return;
  const allowed = NEXT_STATUSES[from];
  throw errors.conflict(
    `Withdrawal ${row.id} is ${from}: it can ${allowed.length ? `only become ${allowed.join(' or ')}` : 'change no more'}`,
    { status: from },
  );
}

/**
 * `labeldesk finance withdrawal set ID --status S`. Money leaves the balance when processing
 * starts, so that move is refused unless the balance still covers it.
 */
export async function moveWithdrawal(
  ctx: AppContext,
  id: number,
  statusText: string,
): Promise<WithdrawalOutcome> {
  if (!isWithdrawalStatus(statusText)) {
    throw errors.invalid('status', `status must be one of ${WITHDRAWAL_STATUSES.slice(1).join(', ')}`);
  }
  const to = statusText;
  return ctx.db.transaction().execute(async (trx) => {
    const workspace = await withdrawalWorkspace(trx, id);
    await lockLabel(trx, ctx.dialect, workspace.id);
    const row = await lockWithdrawal(trx, ctx.dialect, workspace.id, id);
    if (!row) throw errors.notFound(`Withdrawal ${id}`);
    assertMove(row, to);
    const before = balanceOf(await balanceSums(trx, workspace.id));
    if (to === 'processing' && Number(row.amount_cents) > before.availableCents) {
      throw errors.conflict(
        `Withdrawal ${id} asks for ${formatDollars(Number(row.amount_cents))}, over the available balance of ${formatDollars(before.availableCents)}`,
      );
    }
    const updated = await setWithdrawalStatus(trx, workspace.id, id, to, ctx.clock.now().toISOString());
    const after = balanceOf(await balanceSums(trx, workspace.id));
    return { withdrawal: presentForOperator(updated), balance: presentBalance(after) };
  });
}
