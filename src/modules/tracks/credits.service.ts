import type { AppContext } from '../../context.ts';
import type { TrackRow } from '../../core/tracks.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import type { Contributor, Featured, Writer } from './tracks.credits.ts';
import { type TrackFieldsInput, trackChanges } from './tracks.fields.ts';
import { presentTrack } from './tracks.presenter.ts';
import { editTrack, getTrack } from './tracks.service.ts';
import { updateTrackRow } from './tracks.store.ts';

export interface CreditsView {
  ok: true;
  contributors: Contributor[];
  writers: Writer[];
  featured: Featured[];
}

export type CreditsInput = Pick<TrackFieldsInput, 'contributors' | 'writers' | 'featured'>;

function presentCredits(row: TrackRow, workspace: Workspace): CreditsView {
  const { contributors, writers, featured } = presentTrack(row, workspace);
  return { ok: true, contributors, writers, featured };
}

export async function getCredits(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
): Promise<CreditsView> {
  return presentCredits(await getTrack(ctx, workspace, ids.releaseId, ids.trackId), workspace);
}

/** Replaces the lists that are given (at least one); the others stay. */
export async function putCredits(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
  input: CreditsInput,
): Promise<CreditsView> {
  const { contributors, writers, featured } = input;
  if (contributors === undefined && writers === undefined && featured === undefined) {
    throw errors.invalid('contributors', 'Send at least one of contributors, writers or featured');
  }
  const changes = trackChanges({ contributors, writers, featured });
  const row = await editTrack(ctx, workspace, ids, (trx, track, at) =>
    updateTrackRow(trx, workspace.id, track.id, { ...changes, updated_at: at }),
  );
  return presentCredits(row, workspace);
}
