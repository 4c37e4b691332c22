import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { findLabel } from '../../core/labels.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import type { WebhookAttemptsTable } from '../../db/schema.ts';
import { type JobHandler, type RecordWriter, recordOf } from '../../jobs/worker.ts';
import { type DeliveryJob, publish } from '../events/index.ts';
import { workspaceOfLabel } from '../labels/index.ts';
import { decryptSecret } from './webhooks.secrets.ts';
import { signatureHeader, type WebhookSender } from './webhooks.sender.ts';
import {
  countFailure,
  type DeliveryTarget,
  deliveryTargets,
  FAILURES_BEFORE_WARNING,
  type FailureRun,
  insertAttempts,
  resetFailures,
  type TargetKey,
} from './webhooks.store.ts';

/** The exact text posted: the signature covers these bytes. */
export function deliveryBody(job: DeliveryJob, target: DeliveryTarget): string {
  return JSON.stringify({
    id: job.delivery_id,
    event: target.event,
    created_at: target.event_created_at,
    data: readJson(target.data),
    ...(job.redelivery && { redelivery: true, event_id: job.event_id }),
  });
}

/** An attempt to log, and the webhook it counts for or against. */
interface AttemptRecord {
  row: Insertable<WebhookAttemptsTable>;
  ok: boolean;
}

/**
 * The attempts of runs settled together: their log entries in one statement, and the webhooks' runs
 * of failures (20 in a row switch one off). A webhook whose attempts all succeeded has its run reset
 * in one statement with the others; one with a failure among them has its attempts counted in order.
 * A run that reaches 15 warns the label's other webhooks, once: the count passes 15 once per run.
 */
const attemptWriter: RecordWriter<AttemptRecord> = {
  async write(trx, records) {
    await insertAttempts(
      trx,
      records.map((record) => record.row),
    );
    const failing = new Set(records.filter((record) => !record.ok).map((record) => record.row.webhook_id));
    const succeeded = new Set(
      records.map((record) => record.row.webhook_id).filter((id) => !failing.has(id)),
    );
    await resetFailures(trx, [...succeeded]);
    const warnings: Array<{ run: FailureRun; at: string }> = [];
    for (const { row, ok } of records) {
      if (!failing.has(row.webhook_id)) continue;
      if (ok) {
        await resetFailures(trx, [row.webhook_id]);
        continue;
      }
      const run = await countFailure(trx, row.webhook_id);
      if (run?.consecutiveFailures === FAILURES_BEFORE_WARNING) warnings.push({ run, at: row.created_at });
    }
    // Last: publishing holds the label's event sequence until the commit.
    for (const { run, at } of warnings) await warnOtherWebhooks(trx, run, at);
  },
};

/** `webhook.failing` in the label's feed, sent to every other active webhook of the label. */
async function warnOtherWebhooks(trx: Db, run: FailureRun, at: string): Promise<void> {
  const label = await findLabel(trx, run.labelId);
  if (!label) return;
  await publish(
    trx,
    workspaceOfLabel(label),
    'webhook.failing',
    { webhook: { id: run.webhookId, url: run.url }, consecutive_failures: run.consecutiveFailures },
    at,
    { recipients: { allBut: run.webhookId } },
  );
}

interface TargetRequest {
  key: TargetKey;
  resolve: (target: DeliveryTarget | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads delivery targets asked for in the same turn of the event loop together: the worker starts
 * the deliveries of a claim side by side, and they then read their targets in one go, not one each.
 */
function targetReader(db: Db): (key: TargetKey) => Promise<DeliveryTarget | undefined> {
  let waiting: TargetRequest[] = [];
  function read(): void {
    const batch = waiting;
    waiting = [];
    deliveryTargets(
      db,
      batch.map((request) => request.key),
    ).then(
      (targets) => {
        for (const [i, request] of batch.entries()) request.resolve(targets[i]);
      },
      (error: unknown) => {
        for (const request of batch) request.reject(error);
      },
    );
  }
  return (key) =>
    new Promise((resolve, reject) => {
      waiting.push({ key, resolve, reject });
      if (waiting.length === 1) queueMicrotask(read);
    });
}

/**
 * Runs one attempt of a delivery job: signs the body with the webhook's current secret, posts it,
 * logs the attempt, and asks to run again after the next retry delay while attempts remain. A
 * webhook that was deleted or switched off in the meantime gets nothing.
 */
export function deliveryHandler(ctx: AppContext, sender: WebhookSender): JobHandler {
  const readTarget = targetReader(ctx.db);
  return async (job) => {
    const delivery = job.payload as DeliveryJob;
    const target = await readTarget({ webhookId: delivery.webhook_id, eventId: delivery.event_id });
    if (!target || target.active === 0) return undefined;

    const body = deliveryBody(delivery, target);
    const at = ctx.clock.now();
    const secret = decryptSecret(ctx.config, target.secret);
    const result = await sender.send(
      target.url,
      {
        'x-service-event': target.event,
        'x-service-delivery-id': delivery.delivery_id,
        'x-service-signature': signatureHeader(secret, Math.floor(at.getTime() / 1000), body),
      },
      body,
    );
    const attempt = delivery.attempt ?? 1;
    const record = recordOf(attemptWriter, {
      row: {
        webhook_id: delivery.webhook_id,
        workspace_id: target.workspace_id,
        delivery_id: delivery.delivery_id,
        event: target.event,
        event_id: delivery.event_id,
        attempt,
        status: result.status,
        ok: result.ok ? 1 : 0,
        duration_ms: result.durationMs,
        error: result.error,
        created_at: at.toISOString(),
      },
      ok: result.ok,
    });
    const retryDelayMs = result.ok ? undefined : ctx.config.webhookRetryDelaysMs[attempt - 1];
    if (retryDelayMs === undefined) return { record };
    return {
      record,
      runAgainAt: new Date(ctx.clock.now().getTime() + retryDelayMs),
      payload: { ...delivery, attempt: attempt + 1 } satisfies DeliveryJob,
    };
  };
}
