import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import { type Dialect, forUpdateSkipLocked } from '../db/portable.ts';
import type { JobsTable } from '../db/schema.ts';

export type JobRow = Selectable<JobsTable>;

export async function insertJobs(db: Db, rows: Insertable<JobsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('jobs').values(rows).execute();
}

/** Adds a recurring job unless one with its key already exists. */
export async function insertJobOnce(
  db: Db,
  row: Insertable<JobsTable> & { unique_key: string },
): Promise<void> {
  await db
    .insertInto('jobs')
    .values(row)
    .onConflict((conflict) => conflict.column('unique_key').doNothing())
    .execute();
}

/**
 * Takes up to `limit` due jobs, oldest first: each one's `run_at` moves to `leaseUntil` (when it
 * becomes due again should its worker die) and its attempt count goes up.
 */
export async function claimDueJobs(
  db: Db,
  dialect: Dialect,
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<JobRow[]> {
  const due = forUpdateSkipLocked(
    db
      .selectFrom('jobs')
      .select('id')
      .where('run_at', '<=', now)
      .orderBy('run_at')
      .orderBy('id')
      .limit(limit),
    dialect,
  );
  return db
    .updateTable('jobs')
    .set((eb) => ({ run_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', due)
    .returningAll()
    .execute();
}

export async function deleteJob(db: Db, id: number): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', id).execute();
}

export async function deleteJobs(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('jobs').where('id', 'in', ids).execute();
}

export async function rescheduleJob(db: Db, id: number, runAt: string, payload?: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: runAt, ...(payload !== undefined && { payload }) })
    .where('id', '=', id)
    .execute();
}

export async function countJobs(db: Db, kind: string): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', kind)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
