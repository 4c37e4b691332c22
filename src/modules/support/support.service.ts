import type { Static } from 'typebox';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { findReleaseForUpdate } from '../../core/releases.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import { countFor, type Workspace } from '../../db/scope.ts';
import type { SupportRequestStatus, SupportRequestType } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { requireText } from '../../http/fields.ts';
import { publish } from '../events/index.ts';
import { workspaceOwning } from '../labels/index.ts';
import {
  type CreatedSupportRequest,
  MAX_MESSAGE_LENGTH,
  type SupportMessageBody,
  type SupportRequest,
} from './support.schemas.ts';
import {
  answerSupportRequest,
  insertSupportRequest,
  listLabelRequestsWithStatus,
  listSupportRequests,
  lockSupportRequest,
  type SupportRequestRow,
  supportRequestCount,
} from './support.store.ts';

export type CreatedRequestView = Static<typeof CreatedSupportRequest>;
export type SupportRequestView = Static<typeof SupportRequest>;

/** A request as the operator sees it (`labeldesk support ... --json`): with its label. */
export interface OperatorRequestView {
  id: number;
  label_id: number;
  type: SupportRequestType;
  status: SupportRequestStatus;
  release_id: number | null;
  message: string | null;
  reply: string | null;
  dsps: string[] | null;
  created_at: string;
  updated_at: string;
}

const MESSAGE = 'message' satisfies SupportRequestType;

export function presentCreated(row: SupportRequestRow, workspace: Workspace): CreatedRequestView {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    created_at: row.created_at,
    ...(workspace.sandbox && { sandbox: true as const }),
  };
}

/** The operator's view without the label, which the caller knows: its own. */
function presentRequest(row: SupportRequestRow, workspace: Workspace): SupportRequestView {
  const { label_id: _label, ...request } = presentForOperator(row);
  return { ...request, ...(workspace.sandbox && { sandbox: true as const }) };
}

export function presentForOperator(row: SupportRequestRow): OperatorRequestView {
  return {
    id: row.id,
    label_id: row.label_id,
    type: row.type,
    status: row.status,
    release_id: row.release_id,
    message: row.message,
    reply: row.reply,
    dsps: row.dsps === null ? null : readJson(row.dsps),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A message to support or a reply from it: trimmed, not blank, at most MAX_MESSAGE_LENGTH
 * characters. The request schema already limits the API's messages; the operator's replies come
 * only through here.
 */
function messageText(field: string, value: string): string {
  const text = requireText(field, value);
  // Counted in code points, as the schema's maxLength counts: an emoji is one character.
  if ([...text].length > MAX_MESSAGE_LENGTH) {
    throw errors.invalid(field, `${field} must be at most ${MAX_MESSAGE_LENGTH} characters`);
  }
  return text;
}

/**
 * The release a message is about, held until the message is stored (PostgreSQL), so a DELETE of
 * the draft cannot slip in between and fail the insert on its foreign key.
 */
async function releaseOfMessage(
  trx: Db,
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number | null,
): Promise<number | null> {
  if (releaseId === null) return null;
  const release = await findReleaseForUpdate(trx, ctx.dialect, workspace.id, releaseId);
  // A body field names it, so 400 naming the field (as smart links do), not a 404 that reads as
  // "no such route"; another label's release is absent from this workspace like an unknown id.
  if (!release) throw errors.invalid('release_id', 'No release with this id in this label');
  return release.id;
}

/**
 * POST /support: a `pending` message for support, about one of the label's releases if the body
 * names one.
 *
 * With a sandbox key the message is stored in the sandbox workspace, like everything a sandbox
 * key creates; that is what "creates no ticket" means (see requestTakedown): support's queue
 * (`labeldesk support list`) reads only real labels' requests, and `support reply` refuses it.
 */
export async function sendSupportMessage(
  ctx: AppContext,
  workspace: Workspace,
  body: Static<typeof SupportMessageBody>,
): Promise<CreatedRequestView> {
  const message = messageText('message', body.message);
  const at = isoNow(ctx.clock);
  const row = await ctx.db.transaction().execute(async (trx) =>
    insertSupportRequest(trx, {
      label_id: workspace.id,
      type: MESSAGE,
      status: 'pending' satisfies SupportRequestStatus,
      message,
      release_id: await releaseOfMessage(trx, ctx, workspace, body.release_id ?? null),
      reply: null,
      created_at: at,
      updated_at: at,
    }),
  );
  return presentCreated(row, workspace);
}

/** GET /support/requests: the workspace's messages and takedown requests, newest first. */
export async function listWorkspaceRequests(
  ctx: AppContext,
  workspace: Workspace,
  page: { limit: number; offset: number },
): Promise<{ requests: SupportRequestView[]; total: number }> {
  const [rows, total] = await Promise.all([
    listSupportRequests(ctx.db, workspace.id, page),
    countFor(ctx.db, supportRequestCount, workspace.id),
  ]);
  return { requests: rows.map((row) => presentRequest(row, workspace)), total };
}

/** `labeldesk support list`: real labels' requests with `status`, newest first. */
export async function supportQueue(
  ctx: AppContext,
  status: SupportRequestStatus,
): Promise<OperatorRequestView[]> {
  return (await listLabelRequestsWithStatus(ctx.db, status)).map(presentForOperator);
}

/**
 * The workspace of a request the operator names. A sandbox request is no ticket: refused with a
 * reason rather than "not found", so an operator who copied an id from a sandbox user's message
 * learns why there is nothing to answer.
 */
export async function ticketWorkspace(trx: Db, requestId: number): Promise<Workspace> {
  const workspace = await workspaceOwning(trx, 'support_requests', requestId);
  if (!workspace) throw errors.notFound(`Support request ${requestId}`);
  if (workspace.sandbox) {
    throw errors.conflict(`Support request ${requestId} was made with a sandbox key: it is no ticket`);
  }
  return workspace;
}

/** `support.replied` with the answered request as the spec gives it: id, type, status, reply. Publish last. */
export async function publishReply(
  trx: Db,
  workspace: Workspace,
  request: OperatorRequestView,
  at: string,
): Promise<void> {
  const { id, type, status, reply } = request;
  await publish(trx, workspace, 'support.replied', { request: { id, type, status, reply } }, at);
}

/** The message request, held until the transaction ends; a takedown request is answered by approving it. */
async function lockedMessage(
  trx: Db,
  ctx: AppContext,
  workspace: Workspace,
  requestId: number,
): Promise<SupportRequestRow> {
  const request = await lockSupportRequest(trx, ctx.dialect, workspace.id, requestId);
  if (!request) throw errors.notFound(`Support request ${requestId}`);
  if (request.type !== MESSAGE) {
    throw errors.conflict(
      `Support request ${requestId} is a ${request.type} request: answer it with labeldesk support takedown approve ${requestId}`,
    );
  }
  return request;
}

/**
 * `labeldesk support reply REQUEST_ID --message TEXT`: in one transaction the message becomes
 * `answered` with the reply and `support.replied` is published. Replying to an answered message
 * replaces the reply and publishes again: that is how support corrects or completes an answer,
 * and the label learns of it the same way.
 */
export async function replyToMessage(
  ctx: AppContext,
  requestId: number,
  text: string,
): Promise<OperatorRequestView> {
  const reply = messageText('message', text);
  return ctx.db.transaction().execute(async (trx) => {
    const at = isoNow(ctx.clock);
    const workspace = await ticketWorkspace(trx, requestId);
    const request = await lockedMessage(trx, ctx, workspace, requestId);
    const answered = await answerSupportRequest(trx, workspace.id, request.id, {
      status: 'answered' satisfies SupportRequestStatus,
      reply,
      updated_at: at,
    });
    const view = presentForOperator(answered);
    await publishReply(trx, workspace, view, at);
    return view;
  });
}
