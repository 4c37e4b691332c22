import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';
import type { WithdrawalStatus } from '../../db/values.ts';

/** What a label may draw is read from payouts and withdrawals together, in one query. */

export interface BalanceSums {
  earned: number;
  paid: number;
  processing: number;
  pending: number;
}

/** Credited payouts and withdrawals by status, in cents, in one query. */
export async function balanceSums(db: Db, workspaceId: number): Promise<BalanceSums> {
  const withdrawals = (status: WithdrawalStatus) =>
    db
      .selectFrom('withdrawals')
      .select(sql<string | number>`coalesce(sum(amount_cents), 0)`.as('n'))
      .where(ownedBy('withdrawals', workspaceId))
      .where('status', '=', status);
  const row = await db
    .selectNoFrom([
      db
        .selectFrom('payouts')
        .select(sql<string | number>`coalesce(sum(net_cents), 0)`.as('n'))
        .where(ownedBy('payouts', workspaceId))
        .as('earned'),
      withdrawals('paid').as('paid'),
      withdrawals('processing').as('processing'),
      withdrawals('pending').as('pending'),
    ])
    .executeTakeFirstOrThrow();
  return {
    earned: Number(row.earned ?? 0),
    paid: Number(row.paid ?? 0),
    processing: Number(row.processing ?? 0),
    pending: Number(row.pending ?? 0),
  };
}
