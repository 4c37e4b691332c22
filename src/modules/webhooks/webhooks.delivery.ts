import type { AppContext } from '../../context.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { type EventRow, eventById } from '../events/events.store.ts';
import type { DeliveryJob } from './webhooks.fanout.ts';
import { decryptSecret } from './webhooks.secrets.ts';
import { type AttemptResult, signatureHeader, type WebhookSender } from './webhooks.sender.ts';
import {
  countFailure,
  insertAttempt,
  resetFailures,
  type WebhookRow,
  webhookById,
} from './webhooks.store.ts';

/** The exact text posted: the signature covers these bytes. */
export function deliveryBody(job: DeliveryJob, event: EventRow): string {
  return JSON.stringify({
    id: job.delivery_id,
    event: event.event,
    created_at: event.created_at,
    data: JSON.parse(event.data) as unknown,
    ...(job.redelivery && { redelivery: true, event_id: event.id }),
  });
}

async function recordAttempt(
  ctx: AppContext,
  webhook: WebhookRow,
  job: DeliveryJob,
  event: string,
  attempt: number,
  at: Date,
  result: AttemptResult,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await insertAttempt(trx, {
      webhook_id: webhook.id,
      delivery_id: job.delivery_id,
      event,
      attempt,
      status: result.status,
      ok: result.ok ? 1 : 0,
      duration_ms: result.durationMs,
      error: result.error,
      created_at: at.toISOString(),
    });
    if (result.ok) await resetFailures(trx, webhook.id);
    else await countFailure(trx, webhook.id);
  });
}

/**
 * Runs one attempt of a delivery job: signs the body with the webhook's current secret, posts it,
 * logs the attempt, and asks to run again after the next retry delay while attempts remain. A
 * webhook that was deleted or switched off in the meantime gets nothing.
 */
export function deliveryHandler(ctx: AppContext, sender: WebhookSender): JobHandler {
  return async (job) => {
    const delivery = job.payload as DeliveryJob;
    const webhook = await webhookById(ctx.db, delivery.webhook_id);
    if (!webhook || webhook.active === 0) return undefined;
    const event = await eventById(ctx.db, delivery.event_id);
    if (!event) return undefined;

    const body = deliveryBody(delivery, event);
    const at = ctx.clock.now();
    const secret = decryptSecret(ctx.config, webhook.secret);
    const result = await sender.send(
      webhook.url,
      {
        'x-service-event': event.event,
        'x-service-delivery-id': delivery.delivery_id,
        'x-service-signature': signatureHeader(secret, Math.floor(at.getTime() / 1000), body),
      },
      body,
    );
    const attempt = delivery.attempt ?? 1;
    await recordAttempt(ctx, webhook, delivery, event.event, attempt, at, result);
    if (result.ok) return undefined;
    const retryDelayMs = ctx.config.webhookRetryDelaysMs[attempt - 1];
    if (retryDelayMs === undefined) return undefined;
    return {
      runAgainAt: new Date(ctx.clock.now().getTime() + retryDelayMs),
      payload: { ...delivery, attempt: attempt + 1 } satisfies DeliveryJob,
    };
  };
}
