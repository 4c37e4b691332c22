import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Clock, isoNow } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { type Dialect, forUpdate } from '../db/portable.ts';
import type { ReleaseHistoryTable, ReleasesTable } from '../db/schema.ts';
import { ownedBy, type Workspace } from '../db/scope.ts';
import { errors } from '../errors.ts';

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

/** The release in the caller's workspace, or 404 (also for another label's id). */
export async function loadRelease(db: Db, workspace: Workspace, id: number): Promise<ReleaseRow> {
  const release = await findRelease(db, workspace.id, id);
  if (!release) throw errors.notFound('Release');
  return release;
}

/** 409 `conflict` unless the release is still a draft. */
export function assertDraft(release: ReleaseRow, action: string): void {
  if (release.status !== 'draft') {
    throw errors.conflict(
      `${action} is only possible while the release is a draft (it is ${release.status})`,
    );
  }
}

/** Track, cover and credit changes change the release too: `updated_since` must find it. */
export async function touchRelease(
  db: Db,
  workspace: Workspace,
  releaseId: number,
  at: string,
): Promise<void> {
  await updateRelease(db, workspace.id, releaseId, { updated_at: at });
}

/**
 * Runs `change` in a transaction that first marks the release as changed. Updating the release row
 * first also makes concurrent changes of one release wait for each other (a row lock on PostgreSQL;
 * SQLite runs one transaction at a time), so the state read after it is still true at commit.
 */
export async function changeRelease<T>(
  ctx: { readonly db: Db; readonly clock: Clock },
  workspace: Workspace,
  releaseId: number,
  change: (trx: Db, release: ReleaseRow, at: string) => Promise<T>,
): Promise<T> {
  return ctx.db.transaction().execute(async (trx) => {
    const at = isoNow(ctx.clock);
    await touchRelease(trx, workspace, releaseId, at);
    return change(trx, await loadRelease(trx, workspace, releaseId), at);
  });
}
