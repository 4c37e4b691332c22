import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ReleasesTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export type ReleaseRow = Selectable<ReleasesTable>;

export async function findRelease(db: Db, workspaceId: number, id: number): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom('releases')
    .selectAll()
    .where(ownedBy('releases', workspaceId))
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertRelease(db: Db, row: Insertable<ReleasesTable>): Promise<ReleaseRow> {
  return db.insertInto('releases').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateRelease(
  db: Db,
  workspaceId: number,
  id: number,
  changes: Updateable<ReleasesTable>,
): Promise<ReleaseRow | undefined> {
  return db
    .updateTable('releases')
    .set(changes)
    .where(ownedBy('releases', workspaceId))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
