import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import { type Dialect, forUpdate } from '../db/portable.ts';
import type { ReleaseHistoryTable, ReleasesTable } from '../db/schema.ts';
import { ownedBy } from '../db/scope.ts';

/*
 * The release row and what every module that moves a release reads and writes: submission,
 * moderation, the distributor, takedowns, covers, tracks and smart links.
 */

export type ReleaseRow = Selectable<ReleasesTable>;

export async function findRelease(db: Db, workspaceId: number, id: number): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom('releases')
    .selectAll()
    .where(ownedBy('releases', workspaceId))
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The release, held until the transaction ends (PostgreSQL; SQLite has one writer at a time). */
export async function findReleaseForUpdate(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  id: number,
): Promise<ReleaseRow | undefined> {
  return forUpdate(
    db.selectFrom('releases').selectAll().where(ownedBy('releases', workspaceId)).where('id', '=', id),
    dialect,
  ).executeTakeFirst();
}

export async function findReleaseByUpc(
  db: Db,
  workspaceId: number,
  upc: string,
): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom('releases')
    .selectAll()
    .where(ownedBy('releases', workspaceId))
    .where('upc', '=', upc)
    .executeTakeFirst();
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

export async function insertHistory(db: Db, row: Insertable<ReleaseHistoryTable>): Promise<void> {
  await db.insertInto('release_history').values(row).execute();
}
