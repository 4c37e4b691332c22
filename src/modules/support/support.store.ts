import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type Dialect, forUpdate } from '../../db/portable.ts';
import type { SupportRequestsTable } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

export type SupportRequestRow = Selectable<SupportRequestsTable>;

export async function insertSupportRequest(
  db: Db,
  row: Insertable<SupportRequestsTable>,
): Promise<SupportRequestRow> {
  return db.insertInto('support_requests').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * The workspace's open request of `type` about a release (the oldest, if ever there were two):
 * one whose status is among `statuses`.
 */
export async function findOpenRequestForRelease(
  db: Db,
  workspaceId: number,
  releaseId: number,
  type: string,
  statuses: readonly string[],
): Promise<SupportRequestRow | undefined> {
  return db
    .selectFrom('support_requests')
    .selectAll()
    .where(ownedBy('support_requests', workspaceId))
    .where('release_id', '=', releaseId)
    .where('type', '=', type)
    .where('status', 'in', [...statuses])
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The request, held until the transaction ends (PostgreSQL), so two operators never answer it both. */
export async function lockSupportRequest(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  requestId: number,
): Promise<SupportRequestRow | undefined> {
  return forUpdate(
    db
      .selectFrom('support_requests')
      .selectAll()
      .where(ownedBy('support_requests', workspaceId))
      .where('id', '=', requestId),
    dialect,
  ).executeTakeFirst();
}

export async function answerSupportRequest(
  db: Db,
  workspaceId: number,
  requestId: number,
  answer: { status: string; reply: string; updated_at: string },
): Promise<SupportRequestRow> {
  return db
    .updateTable('support_requests')
    .set(answer)
    .where(ownedBy('support_requests', workspaceId))
    .where('id', '=', requestId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Approved takedown requests of a release that is now down on every platform are done. */
export async function completeTakedownRequests(
  db: Db,
  workspaceId: number,
  releaseId: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('support_requests')
    .set({ status: 'completed', updated_at: at })
    .where(ownedBy('support_requests', workspaceId))
    .where('release_id', '=', releaseId)
    .where('type', '=', 'takedown')
    .where('status', '=', 'approved')
    .execute();
}
