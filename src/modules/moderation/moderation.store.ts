import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';

/** Whether any release of any label carries this UPC. */
export async function upcInUse(db: Db, upc: string): Promise<boolean> {
  const row = await db.selectFrom('releases').select('id').where('upc', '=', upc).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether any track of any label carries this ISRC. */
export async function isrcInUse(db: Db, isrc: string): Promise<boolean> {
  const row = await db.selectFrom('tracks').select('id').where('isrc', '=', isrc).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function setTrackIsrc(
  db: Db,
  workspaceId: number,
  trackId: number,
  isrc: string,
): Promise<void> {
  await db
    .updateTable('tracks')
    .set({ isrc })
    .where(ownedBy('tracks', workspaceId))
    .where('id', '=', trackId)
    .execute();
}
