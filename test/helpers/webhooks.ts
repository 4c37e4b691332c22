import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { TestContext } from 'node:test';
import { type Background, createBackground } from '../../src/background.ts';
import type { Workspace } from '../../src/db/scope.ts';
import type { EventKind } from '../../src/db/values.ts';
import type { RateLimiter } from '../../src/http/rate-limiter.ts';

import { publish } from '../../src/modules/events/events.service.ts';
import { buildHarness, call, type Harness, json } from './harness.ts';
import type { ReceivedDelivery, Receiver } from './receiver.ts';

/** For tests that send more than the 10 tests a minute a webhook allows, at one instant of the clock. */
export const UNMETERED: RateLimiter = {
  hit: (_bucket, limit, nowMs) => ({ allowed: true, limit, remaining: limit, resetAtMs: nowMs + 60_000 }),
  close: async () => undefined,
};

/** The harness env that lets deliveries reach a receiver on the loopback address. */
export const LOOPBACK_RECEIVERS = { WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32' };

/**
 * The job worker of this harness's server, trusting the receiver's certificate; stopped after the
 * test. With `concurrency: 1` jobs run one at a time in queue order, so deliveries arrive in order.
 */
export function givenWorker(
  t: TestContext,
  h: Harness,
  receiver: Partial<Pick<Receiver, 'ca'>>,
  options: { concurrency?: number } = {},
): Background {
  const background = createBackground(h.ctx, {
    ca: receiver.ca,
    ...options,
    onError: (error) => {
      throw error;
    },
  });
  t.after(() => background.close());
  return background;
}

export interface CreatedWebhook {
  id: number;
  url: string;
  events: string[];
  secret: string;
  active: boolean;
}

export async function givenWebhook(
  h: Harness,
  key: string,
  url: string,
  events: EventKind[] = ['webhook.test'],
): Promise<CreatedWebhook> {
  const response = await call(h, 'POST', '/api/v1/webhooks', { key, payload: { url, events } });
  if (response.statusCode !== 201)
    throw new Error(`webhook not created: ${response.statusCode} ${response.body}`);
  return (json(response) as { webhook: CreatedWebhook }).webhook;
}

export function liveWorkspace(labelId: number): Workspace {
  return { id: labelId, labelId, sandbox: false, catalogCopied: true };
}

/** Publishes one event in a transaction of its own, as a producer's change would. */
export async function publishEvent(
  h: Harness,
  workspace: Workspace,
  event: EventKind,
  data: Record<string, unknown>,
): Promise<number> {
  const at = h.clock.now().toISOString();
  const view = await h.ctx.db.transaction().execute((trx) => publish(trx, workspace, event, data, at));
  return view.id;
}

/** A public address (TEST-NET addresses are refused as reserved, so tests name a real one). */
const PUBLIC_ADDRESS = '93.184.215.14';
export const HOOK_URL = `https://${PUBLIC_ADDRESS}/hooks`;

/**
 * A harness whose resolver answers hooks.example.com with a public address and rebound.example.com
 * with 127.0.0.1, and knows no other name.
 */
export async function harness(t: TestContext, limiter?: RateLimiter): Promise<Harness> {
  return buildHarness(t, {
    ...(limiter && { limiter }),
    resolveHost: async (hostname) => {
      if (hostname === 'hooks.example.com') return [{ address: PUBLIC_ADDRESS, family: 4 }];
      if (hostname === 'rebound.example.com') return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    },
  });
}

/** A delivery's JSON body as the receiver got it. */
export interface Body {
  id: string;
  event: string;
  created_at: string;
  data: Record<string, unknown>;
  redelivery?: boolean;
  event_id?: number;
}

export const bodyOf = (delivery: ReceivedDelivery): Body => JSON.parse(delivery.body) as Body;

/** The delivery's `X-Service-Signature` is the one `secret` makes for its body and time. */
export function signedBy(delivery: ReceivedDelivery, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['x-service-signature']));
  return match?.[2] === createHmac('sha256', secret).update(`${match?.[1]}.${delivery.body}`).digest('hex');
}

export async function deliveryLog(h: Harness, key: string, webhookId: number, query = '') {
  const response = await call(h, 'GET', `/api/v1/webhooks/${webhookId}/deliveries${query}`, { key });
  assert.equal(response.statusCode, 200);
  return { response, body: json(response) as { deliveries: Array<Record<string, unknown>>; total: number } };
}
