import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type Dialect, forKeyShare, forUpdate } from '../../db/portable.ts';
import type { LabelsTable } from '../../db/schema.ts';

export type LabelRow = Selectable<LabelsTable>;

export async function insertLabel(db: Db, row: Insertable<LabelsTable>): Promise<LabelRow> {
  return db.insertInto('labels').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findLabel(db: Db, id: number): Promise<LabelRow | undefined> {
  return db.selectFrom('labels').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSandboxOf(db: Db, parentId: number): Promise<LabelRow | undefined> {
  return db.selectFrom('labels').selectAll().where('parent_id', '=', parentId).executeTakeFirst();
}

export async function slugTaken(db: Db, slug: string): Promise<boolean> {
  const row = await db.selectFrom('labels').select('id').where('slug', '=', slug).executeTakeFirst();
  return row !== undefined;
}

/** Real labels only: sandbox workspaces are listed with their parent. */
export async function listLabels(db: Db): Promise<LabelRow[]> {
  return db.selectFrom('labels').selectAll().where('parent_id', 'is', null).orderBy('id').execute();
}

export async function countLabels(db: Db): Promise<number> {
  const row = await db
    .selectFrom('labels')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('parent_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateLabelRow(db: Db, id: number, patch: Updateable<LabelsTable>): Promise<LabelRow> {
  return db.updateTable('labels').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Holds the label's row for the transaction, so that limit checks of one label run one at a time. */
/**
 * The lock a foreign key to the label row takes (PostgreSQL's FOR KEY SHARE), taken up front by a
 * transaction that will publish an event, so it holds the label before any row of the label's.
 */
export async function shareLockLabel(db: Db, dialect: Dialect, id: number): Promise<void> {
  await forKeyShare(db.selectFrom('labels').select('id').where('id', '=', id), dialect)?.execute();
}

export async function lockLabel(db: Db, dialect: Dialect, id: number): Promise<void> {
  await forUpdate(db.selectFrom('labels').select('id').where('id', '=', id), dialect).execute();
}
