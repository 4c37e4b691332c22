import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';

export async function upsertDspStatus(
  db: Db,
  row: {
    release_id: number;
    label_id: number;
    dsp: string;
    stage: string;
    detail: string | null;
    updated_at: string;
  },
): Promise<void> {
  await db
    .insertInto('release_dsp_statuses')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['release_id', 'dsp']).doUpdateSet({
        stage: row.stage,
        detail: row.detail,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function releaseStages(db: Db, workspaceId: number, releaseId: number) {
  return db
    .selectFrom('release_dsp_statuses')
    .select(['dsp', 'stage'])
    .where(ownedBy('release_dsp_statuses', workspaceId))
    .where('release_id', '=', releaseId)
    .execute();
}

/** Remembers a signature of an applied inbound report; false when it was seen before (a replay). */
export async function rememberSignature(db: Db, signature: string, at: string): Promise<boolean> {
  const inserted = await db
    .insertInto('distributor_report_signatures')
    .values({ signature, received_at: at })
    .onConflict((oc) => oc.column('signature').doNothing())
    .returning('signature')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function forgetSignaturesBefore(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom('distributor_report_signatures')
    .where('received_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The approved takedown requests of a release, with the platforms each names (null: every one). */
export async function approvedTakedownRequests(db: Db, workspaceId: number, releaseId: number) {
  return db
    .selectFrom('support_requests')
    .select(['id', 'dsps'])
    .where(ownedBy('support_requests', workspaceId))
    .where('release_id', '=', releaseId)
    .where('type', '=', 'takedown')
    .where('status', '=', 'approved')
    .execute();
}

export async function completeSupportRequests(
  db: Db,
  workspaceId: number,
  ids: readonly number[],
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('support_requests')
    .set({ status: 'completed', updated_at: at })
    .where(ownedBy('support_requests', workspaceId))
    .where('id', 'in', ids)
    .execute();
}
