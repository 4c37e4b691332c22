import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { readJson } from '../../db/json-column.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { DeliveryJob } from '../events/index.ts';
import { decryptSecret } from './webhooks.secrets.ts';
import { type AttemptResult, signatureHeader, type WebhookSender } from './webhooks.sender.ts';
import {
  countFailure,
  type DeliveryTarget,
  deliveryTarget,
  insertAttempt,
  resetFailures,
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

/** The attempt's log entry and the webhook's run of failures (20 in a row switch it off). */
async function recordAttempt(
  trx: Db,
  job: DeliveryJob,
  event: string,
  attempt: number,
  at: Date,
  result: AttemptResult,
): Promise<void> {
  await insertAttempt(trx, {
    webhook_id: job.webhook_id,
    event_id: job.event_id,
    delivery_id: job.delivery_id,
    event,
    attempt,
    status: result.status,
    ok: result.ok ? 1 : 0,
    duration_ms: result.durationMs,
    error: result.error,
    created_at: at.toISOString(),
  });
  if (result.ok) await resetFailures(trx, job.webhook_id);
  else await countFailure(trx, job.webhook_id);
}

/**
 * Runs one attempt of a delivery job: signs the body with the webhook's current secret, posts it,
 * logs the attempt, and asks to run again after the next retry delay while attempts remain. A
 * webhook that was deleted or switched off in the meantime gets nothing.
 */
export function deliveryHandler(ctx: AppContext, sender: WebhookSender): JobHandler {
  return async (job) => {
    const delivery = job.payload as DeliveryJob;
    const target = await deliveryTarget(ctx.db, delivery.webhook_id, delivery.event_id);
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
    const record = (trx: Db) => recordAttempt(trx, delivery, target.event, attempt, at, result);
    const retryDelayMs = result.ok ? undefined : ctx.config.webhookRetryDelaysMs[attempt - 1];
    if (retryDelayMs === undefined) return { record };
    return {
      record,
      runAgainAt: new Date(ctx.clock.now().getTime() + retryDelayMs),
      payload: { ...delivery, attempt: attempt + 1 } satisfies DeliveryJob,
    };
  };
}
