import type { Static } from 'typebox';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { findReleaseForUpdate } from '../../core/releases.ts';
import { listReleaseTracks } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import type { ReleaseStatus, SupportRequestStatus, SupportRequestType } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { distributorFor, type OutgoingRelease } from '../distributor/index.ts';
import { PLATFORM_KEYS } from '../platforms/index.ts';
import { findReleaseListRow, type ReleaseListRow } from '../releases/index.ts';
import type { TakedownRequestBody } from './support.schemas.ts';
import {
  type CreatedRequestView,
  type OperatorRequestView,
  presentCreated,
  presentForOperator,
  publishReply,
  ticketWorkspace,
} from './support.service.ts';
import {
  answerSupportRequest,
  findOpenRequestForRelease,
  insertSupportRequest,
  lockSupportRequest,
  type SupportRequestRow,
} from './support.store.ts';

export interface ApprovedTakedown {
  request: OperatorRequestView;
  release: { id: number; title: string; status: ReleaseStatus; upc: string };
}

const TAKEDOWN = 'takedown' satisfies SupportRequestType;

/** The release is on its way to, or on, the platforms: the only releases there is anything to take down from. */
const ON_PLATFORMS: readonly ReleaseStatus[] = ['submitted', 'live', 'failed'];

/**
 * A takedown request stays open from creation until the release is down: `pending` while support
 * has not acted, `approved` while the distributor carries it out. A second request meanwhile
 * would only duplicate the first, so it is refused with the first one's id.
 */
const OPEN_TAKEDOWN: readonly SupportRequestStatus[] = ['pending', 'approved'];

export const TAKEDOWN_APPROVED_REPLY = 'Takedown approved: the release is being removed from every platform';

function assertOnPlatforms(release: { id: number; status: string }): void {
  if ((ON_PLATFORMS as readonly string[]).includes(release.status)) return;
  if (release.status === 'takedown') {
    throw errors.conflict(`Release ${release.id} is already taken down from every platform`);
  }
  throw errors.conflict(
    `Release ${release.id} was never sent to the platforms (it is ${release.status}): nothing to take down`,
  );
}

/**
 * POST /releases/{id}/takedown-request: a `pending` takedown request for support, and nothing
 * else; the release stays on its platforms until support approves and the distributor reports.
 *
 * With a sandbox key the request is stored in the sandbox workspace, like everything else a
 * sandbox key creates. That is what "creates no ticket" means here: operator listings and
 * `labeldesk support takedown approve` read only real labels' requests, so support never sees it.
 * Storing it (rather than answering an unstored request with a made-up id) keeps the sandbox
 * faithful to production for the integrator testing against it: a real id, the same 409 with
 * `request_id` when the request is repeated, and the request in the sandbox's own request list.
 */
export async function requestTakedown(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
  body: Static<typeof TakedownRequestBody>,
): Promise<CreatedRequestView> {
  const reason = body.reason?.trim() || null;
  const at = isoNow(ctx.clock);
  const row = await ctx.db.transaction().execute(async (trx) => {
    // Held without being changed: a second request for the release waits here and then sees the first.
    const release = await findReleaseForUpdate(trx, ctx.dialect, workspace.id, releaseId);
    if (!release) throw errors.notFound('Release');
    assertOnPlatforms(release);
    const open = await findOpenRequestForRelease(trx, workspace.id, releaseId, TAKEDOWN, OPEN_TAKEDOWN);
    if (open) {
      throw errors.conflict(`A takedown request for release ${releaseId} is already ${open.status}`, {
        request_id: open.id,
      });
    }
    return insertSupportRequest(trx, {
      label_id: workspace.id,
      type: TAKEDOWN,
      status: 'pending',
      message: reason,
      release_id: releaseId,
      reply: null,
      created_at: at,
      updated_at: at,
    });
  });
  return presentCreated(row, workspace);
}

async function pendingTakedown(
  trx: Db,
  ctx: AppContext,
  workspace: Workspace,
  requestId: number,
): Promise<SupportRequestRow & { release_id: number }> {
  const request = await lockSupportRequest(trx, ctx.dialect, workspace.id, requestId);
  if (!request) throw errors.notFound(`Support request ${requestId}`);
  if (request.type !== TAKEDOWN) {
    throw errors.conflict(
      `Support request ${requestId} is a ${request.type} request, not a takedown request`,
    );
  }
  if (request.status !== 'pending') {
    throw errors.conflict(`Takedown request ${requestId} is already ${request.status}`);
  }
  const releaseId = request.release_id;
  if (releaseId === null) throw errors.conflict(`The release of takedown request ${requestId} was deleted`);
  return { ...request, release_id: releaseId };
}

async function releaseAtDistributor(
  trx: Db,
  workspace: Workspace,
  releaseId: number,
): Promise<ReleaseListRow & { upc: string }> {
  const release = await findReleaseListRow(trx, workspace.id, releaseId);
  if (!release) throw errors.conflict(`Release ${releaseId} no longer exists`);
  assertOnPlatforms(release);
  const upc = release.upc;
  // Every release the distributor received has a UPC: one is assigned at submission when absent.
  if (upc === null) {
    throw errors.conflict(`Release ${releaseId} has no UPC: the distributor never received it`);
  }
  return { ...release, upc };
}

async function outgoing(
  trx: Db,
  workspace: Workspace,
  release: { id: number; upc: string },
): Promise<OutgoingRelease> {
  const tracks = await listReleaseTracks(trx, workspace.id, release.id);
  return {
    id: release.id,
    upc: release.upc,
    isrcs: tracks.flatMap((track) => (track.isrc ? [track.isrc] : [])),
  };
}

/**
 * `labeldesk support takedown approve REQUEST_ID`: in one transaction the request becomes
 * `approved` with its reply, the distributor is told to take the release down, and
 * `support.replied` is published. The release and its platforms change only when the distributor
 * reports `taken_down` (applyPlatformReports), which is when `release.dsp_status` events follow.
 */
export async function approveTakedown(ctx: AppContext, requestId: number): Promise<ApprovedTakedown> {
  return ctx.db.transaction().execute(async (trx) => {
    const at = ctx.clock.now();
    const workspace = await ticketWorkspace(trx, requestId);
    const request = await pendingTakedown(trx, ctx, workspace, requestId);
    const release = await releaseAtDistributor(trx, workspace, request.release_id);
    const answered = await answerSupportRequest(trx, workspace.id, request.id, {
      status: 'approved' satisfies SupportRequestStatus,
      reply: TAKEDOWN_APPROVED_REPLY,
      updated_at: at.toISOString(),
    });
    await distributorFor(ctx.config, workspace).takeDown(
      trx,
      await outgoing(trx, workspace, release),
      at,
      PLATFORM_KEYS,
    );
    const view = presentForOperator(answered);
    await publishReply(trx, workspace, view, at.toISOString());
    return {
      request: view,
      release: {
        id: release.id,
        title: release.title,
        status: release.status,
        upc: release.upc,
      },
    };
  });
}
