import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { findRelease, type ReleaseRow, updateRelease } from './releases.store.ts';

export const RELEASE_STATUSES = ['draft', 'submitting', 'submitted', 'live', 'failed', 'takedown'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

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
