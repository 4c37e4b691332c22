import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import { changeRelease, insertHistory, type ReleaseRow, updateRelease } from '../../core/releases.ts';
import { listReleaseTracks, type TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import { errors } from '../../errors.ts';
import type { Authenticated } from '../keys/index.ts';
import { approve, eventRelease, publishAll, queueReview, type StepEvent } from '../moderation/index.ts';
import { type Problem, refusedAtSubmit, releaseProblems } from '../validation/index.ts';
import type { SubmitBody, SubmitResponse } from './submission.schemas.ts';

/** Approval of a sandbox submission: it never sees an operator or the distributor. */
const SANDBOX_APPROVAL_COMMENT = 'Sandbox: accepted at once';

const RIGHTS_NOT_CONFIRMED: Problem = {
  code: 'rights_not_confirmed',
  severity: 'error',
  field: 'confirm_rights',
  message: 'confirm_rights must be true: confirm the label holds the rights to distribute this release.',
  track_id: null,
};

/**
 * Everything that keeps a draft from going to moderation: the contract's submit preconditions among
 * the release checker's errors (as `POST /releases/{id}/validate` lists them), then the rights
 * confirmation. The checker's other errors are moderation's to decide: it rejects the release.
 */
async function submissionProblems(
  trx: Db,
  release: ReleaseRow,
  tracks: readonly TrackRow[],
  confirmRights: boolean,
  now: Date,
): Promise<Problem[]> {
  const problems = refusedAtSubmit(await releaseProblems(trx, { release, tracks, now }));
  return confirmRights ? problems : [...problems, RIGHTS_NOT_CONFIRMED];
}

function assertSubmittable(auth: Authenticated, release: ReleaseRow, problems: readonly Problem[]): void {
  if (release.status !== 'draft') {
    throw errors.conflict(`Only a draft can be submitted (this release is ${release.status})`);
  }
  if (auth.label.contract_signed !== 1) {
    throw errors.contractRequired();
  }
  const [first] = problems;
  if (first) {
    throw errors.invalid(first.field, `The release is not ready to submit: ${first.message}`, {
      problems,
    });
  }
}

function messageFor(sandbox: boolean, moderation: AppContext['config']['moderation']): string {
  if (sandbox) {
    return 'Sandbox: the release is accepted at once (release.approved follows) and goes live on every platform after SANDBOX_LIVE_AFTER; nothing is sent to the distributor';
  }
  return moderation === 'auto'
    ? 'The release is in moderation: automated checks run now; release.approved or release.rejected follows'
    : 'The release is in moderation and waits for a moderator; release.approved or release.rejected follows';
}

/**
 * `POST /releases/{id}/submit`: a ready draft goes to moderation (`submitting`, review `pending`,
 * `release.review_pending`). A sandbox's release is approved in the same transaction and goes
 * live by the sandbox's timer.
 */
export async function submitRelease(
  ctx: AppContext,
  auth: Authenticated,
  id: number,
  body: Static<typeof SubmitBody>,
): Promise<Static<typeof SubmitResponse>> {
  const { workspace } = auth;
  await changeRelease(ctx, workspace, id, async (trx, release, iso) => {
    const tracks = await listReleaseTracks(trx, workspace.id, id);
    const problems = await submissionProblems(trx, release, tracks, body.confirm_rights, new Date(iso));
    assertSubmittable(auth, release, problems);
    const submitted = {
      status: 'submitting',
      review_status: 'pending',
      review_comment: null,
      submitted_at: iso,
      updated_at: iso,
    } as const;
    await updateRelease(trx, workspace.id, id, submitted);
    await insertHistory(trx, {
      label_id: workspace.id,
      release_id: id,
      status: 'submitting',
      review_status: 'pending',
      comment: null,
      at: iso,
    });
    const events: StepEvent[] = [
      { event: 'release.review_pending', data: { release: await eventRelease(trx, workspace, id) } },
    ];
    const at = new Date(iso);
    if (workspace.sandbox) {
      events.push(
        ...(await approve(trx, ctx, workspace, { ...release, ...submitted }, SANDBOX_APPROVAL_COMMENT, at)),
      );
    } else if (ctx.config.moderation === 'auto') {
      await queueReview(trx, id, at);
    }
    await publishAll(trx, workspace, events, iso);
  });
  // The sandbox answers as production does, so an integration tested there sees the same 202;
  // its card and events already show the approval.
  return {
    ok: true,
    release_id: id,
    status: 'submitting',
    review: 'pending',
    message: messageFor(workspace.sandbox, ctx.config.moderation),
  };
}
