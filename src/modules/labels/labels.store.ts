import type { Insertable, Updateable } from 'kysely';
import type { LabelRow } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import type { LabelsTable } from '../../db/schema.ts';

export async function insertLabel(db: Db, row: Insertable<LabelsTable>): Promise<LabelRow> {
  return db.insertInto('labels').values(row).returningAll().executeTakeFirstOrThrow();
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
