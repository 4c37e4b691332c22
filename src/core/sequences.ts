import type { Db } from '../db/database.ts';

/**
 * The next number of a named counter, starting at 1. The row stays locked until the transaction
 * ends (PostgreSQL), so two approvals never take the same number; SQLite has one writer anyway.
 */
export async function nextInSequence(db: Db, name: string): Promise<number> {
  await db
    .insertInto('sequences')
    .values({ name, value: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .updateTable('sequences')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', name)
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
