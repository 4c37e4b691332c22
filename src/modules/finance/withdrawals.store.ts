import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type Dialect, forUpdate } from '../../db/portable.ts';
import type { WithdrawalsTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { WithdrawalStatus } from '../../db/values.ts';
import type { PageRequest } from '../../http/pagination.ts';

/** What a label asked to be paid out, and where each request stands. */

export type WithdrawalRow = Selectable<WithdrawalsTable>;

export async function listWithdrawals(
  db: Db,
  workspaceId: number,
  page: Pick<PageRequest, 'limit' | 'offset'>,
  statuses?: readonly WithdrawalStatus[],
): Promise<WithdrawalRow[]> {
  let query = db.selectFrom('withdrawals').selectAll().where(ownedBy('withdrawals', workspaceId));
  if (statuses) query = query.where('status', 'in', [...statuses]);
  return query.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countWithdrawals(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('withdrawals')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('withdrawals', workspaceId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertWithdrawal(db: Db, row: Insertable<WithdrawalsTable>): Promise<WithdrawalRow> {
  return db.insertInto('withdrawals').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function lockWithdrawal(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  id: number,
): Promise<WithdrawalRow | undefined> {
  return forUpdate(
    db.selectFrom('withdrawals').selectAll().where(ownedBy('withdrawals', workspaceId)).where('id', '=', id),
    dialect,
  ).executeTakeFirst();
}

export async function setWithdrawalStatus(
  db: Db,
  workspaceId: number,
  id: number,
  status: WithdrawalStatus,
  at: string,
): Promise<WithdrawalRow> {
  return db
    .updateTable('withdrawals')
    .set({ status, updated_at: at })
    .where(ownedBy('withdrawals', workspaceId))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
