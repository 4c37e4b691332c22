import { randomUUID } from 'node:crypto';
import type { DdexParty } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import { ApiError } from '../../errors.ts';
import { type DealEnd, type MessageHeaderInput, newReleaseMessage } from './ddex.message.ts';
import { type DdexRelease, loadDdexRelease } from './ddex.release.ts';

/** The operator as message sender; 503 `unavailable` on a server that has no DDEX Party ID. */
export function ddexSender(ctx: AppContext): { id: string; name: string } {
  const { sender } = ctx.config.ddex;
  if (!sender) {
    // Not errors.unavailable: its `Retry-After: 1` would promise that asking again helps.
    throw new ApiError(
      503,
      'unavailable',
      'DDEX export is not set up on this server: the operator sets DDEX_PARTY_ID and DDEX_PARTY_NAME',
    );
  }
  return sender;
}

/** A message header for one recipient; every message gets an id of its own. */
export function headerFor(ctx: AppContext, workspace: Workspace, recipient: DdexParty): MessageHeaderInput {
  return {
    messageId: randomUUID(),
    sender: ddexSender(ctx),
    recipient,
    createdAt: ctx.clock.now(),
    test: workspace.sandbox,
  };
}

export function messageFor(
  ctx: AppContext,
  workspace: Workspace,
  release: DdexRelease,
  recipient: DdexParty,
  end: DealEnd | null = null,
): string {
  return newReleaseMessage(release, headerFor(ctx, workspace, recipient), end);
}

/** `GET /releases/{id}/ddex`: the release's NewReleaseMessage for `recipient`. */
export async function releaseMessage(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
  recipient: DdexParty,
): Promise<{ upc: string; xml: string }> {
  ddexSender(ctx);
  const release = await loadDdexRelease(ctx.db, workspace, id);
  return { upc: release.upc, xml: messageFor(ctx, workspace, release, recipient) };
}
