import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import { type Dialect, forKeyShare, forUpdate } from '../db/portable.ts';
import type { LabelsTable } from '../db/schema.ts';

/* The label row and its locks: every module that works in a label's name reads or holds it. */

export type LabelRow = Selectable<LabelsTable>;

export async function findLabel(db: Db, id: number): Promise<LabelRow | undefined> {
  return db.selectFrom('labels').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The lock a foreign key to the label row takes (PostgreSQL's FOR KEY SHARE), taken up front by a
 * transaction that will publish an event, so it holds the label before any row of the label's.
 */
export async function shareLockLabel(db: Db, dialect: Dialect, id: number): Promise<void> {
  await forKeyShare(db.selectFrom('labels').select('id').where('id', '=', id), dialect)?.execute();
}

/** Holds the label's row for the transaction, so that limit checks of one label run one at a time. */
export async function lockLabel(db: Db, dialect: Dialect, id: number): Promise<void> {
  await forUpdate(db.selectFrom('labels').select('id').where('id', '=', id), dialect).execute();
}
