import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type Dialect, forUpdate } from '../../db/portable.ts';
import type { SupportRequestsTable } from '../../db/schema.ts';
import { type LabelCount, ownedBy } from '../../db/scope.ts';

export type SupportRequestRow = Selectable<SupportRequestsTable>;

export async function insertSupportRequest(
  db: Db,
  row: Insertable<SupportRequestsTable>,
): Promise<SupportRequestRow> {
  return db.insertInto('support_requests').values(row).returningAll().executeTakeFirstOrThrow();
}

export const supportRequestCount: LabelCount = (eb, workspaceId) =>
  eb
    .selectFrom('support_requests')
    .select((inner) => inner.fn.countAll().as('n'))
    .where(ownedBy('support_requests', workspaceId));

/** One page of the workspace's requests, newest first. */
export async function listSupportRequests(
  db: Db,
  workspaceId: number,
  page: { limit: number; offset: number },
): Promise<SupportRequestRow[]> {
  return db
    .selectFrom('support_requests')
    .selectAll()
    .where(ownedBy('support_requests', workspaceId))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** The most requests `labeldesk support list` prints at once: the newest. */
const QUEUE_LENGTH = 1000;

/**
 * Requests of every real label with `status`, newest first: support's queue. Sandbox workspaces
 * (label rows with a parent) are left out, as their requests are no tickets.
 */
export async function listLabelRequestsWithStatus(
  db: Db,
  status: SupportRequestRow['status'],
): Promise<SupportRequestRow[]> {
  return db
    .selectFrom('support_requests')
    .innerJoin('labels', 'labels.id', 'support_requests.label_id')
    .selectAll('support_requests')
    .where('labels.parent_id', 'is', null)
    .where('support_requests.status', '=', status)
    .orderBy('support_requests.id', 'desc')
    .limit(QUEUE_LENGTH)
    .execute();
}

/**
 * The workspace's open request of `type` about a release (the oldest, if ever there were two):
 * one whose status is among `statuses`.
 */
export async function findOpenRequestForRelease(
  db: Db,
  workspaceId: number,
  releaseId: number,
  type: SupportRequestRow['type'],
  statuses: readonly SupportRequestRow['status'][],
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
  answer: { status: SupportRequestRow['status']; reply: string; updated_at: string },
): Promise<SupportRequestRow> {
  return db
    .updateTable('support_requests')
    .set(answer)
    .where(ownedBy('support_requests', workspaceId))
    .where('id', '=', requestId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
