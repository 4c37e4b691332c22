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

/**
 * The workspace a request belongs to. The operator names requests by id alone, across labels:
 * this lookup is the one place that reads a request without a workspace, and everything after it
 * is scoped to the workspace it returns.
 */
export async function findRequestWorkspaceId(db: Db, requestId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('support_requests')
    .select('label_id')
    .where('id', '=', requestId)
    .executeTakeFirst();
  return row?.label_id;
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

/**
 * Holds the release row until the transaction ends (PostgreSQL) without changing it: a takedown
 * request leaves the release as it is, yet two requests for one release must run one at a time
 * so that only one of them finds no open request. SQLite has one writer at a time already.
 */
export async function lockReleaseRow(
  db: Db,
  dialect: Dialect,
  workspaceId: number,
  releaseId: number,
): Promise<void> {
  await forUpdate(
    db
      .selectFrom('releases')
      .select('id')
      .where(ownedBy('releases', workspaceId))
      .where('id', '=', releaseId),
    dialect,
  ).execute();
}
