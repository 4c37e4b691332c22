// verifyWebhook() on real deliveries (issue 22): `labeldesk serve` signs a test event and delivers it to a
// real HTTPS receiver; the verifier accepts it with the webhook's secret and refuses it after a secret
// rotation, 301 seconds later, with a malformed header, or with a changed body, saying which check failed.
// After an outage, POST /webhooks/{id}/recover through the client sends the missed delivery again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ReceivedDelivery } from '../../../test/helpers/receiver.ts';
import {
  createLabeldeskClient,
  type LabeldeskClient,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from '../src/index.ts';
import { type Served, serve } from './served.ts';

async function refusal(work: Promise<unknown>): Promise<WebhookVerificationFailure> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    return error.reason;
  }
  assert.fail('verifyWebhook accepted it');
}

function signatureOf(delivery: ReceivedDelivery): string {
  return String(delivery.headers['x-service-signature']);
}

/** The `t` of a signature header, in milliseconds. */
function signedAt(header: string): number {
  return Number(/^t=(\d+),/.exec(header)?.[1]) * 1000;
}

describe('verifyWebhook on deliveries of labeldesk serve', () => {
  let served: Served;
  let api: LabeldeskClient;
  let webhookId: number;
  let secret: string;

  /** Asks for a test delivery and resolves with it once the receiver has it. */
  async function testDelivery(): Promise<ReceivedDelivery> {
    const count = served.receiver.received.length;
    const { data } = await api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: webhookId } } });
    await served.receiver.waitFor(count + 1, 15_000);
    const delivery = served.receiver.received[count] as ReceivedDelivery;
    assert.equal(delivery.headers['x-service-delivery-id'], data.delivery_id);
    return delivery;
  }

  before(async () => {
    // Retries a second apart, so that a failed delivery has used its three attempts within seconds.
    served = await serve('client_webhook', undefined, { WEBHOOK_RETRY_DELAYS: '1s,1s' });
    api = createLabeldeskClient({ baseUrl: served.origin, apiKey: served.key, fetch: served.fetch });
    const { data } = await api.POST('/api/v1/webhooks', {
      body: { url: `${served.receiver.origin}/hooks`, events: ['webhook.test'] },
    });
    webhookId = data.webhook.id;
    secret = data.webhook.secret;
    assert.match(secret, /^svcwh_/);
  });
  after(() => served?.dispose());

  test('a real delivery is verified and returned as the typed event', async () => {
    const delivery = await testDelivery();
    const event = await verifyWebhook(delivery.body, signatureOf(delivery), secret);
    assert.deepEqual(
      { id: event.id, event: event.event, message: typeof event.data.message },
      { id: delivery.headers['x-service-delivery-id'], event: 'webhook.test', message: 'string' },
    );
    assert.equal(event.created_at, JSON.parse(delivery.body).created_at);
    // The raw bytes do as well as the text.
    const bytes = new TextEncoder().encode(delivery.body);
    assert.deepEqual(await verifyWebhook(bytes, signatureOf(delivery), secret), event);
  });

  test('the timestamp may be 300 seconds from now, not 301', async () => {
    const delivery = await testDelivery();
    const header = signatureOf(delivery);
    const t = signedAt(header);
    for (const now of [t + 300_000, t - 300_000, new Date(t + 300_000)]) {
      assert.equal((await verifyWebhook(delivery.body, header, secret, { now })).event, 'webhook.test');
    }
    assert.equal(
      await refusal(verifyWebhook(delivery.body, header, secret, { now: t + 301_000 })),
      'timestamp_out_of_tolerance',
    );
    assert.equal(
      await refusal(verifyWebhook(delivery.body, header, secret, { now: t - 301_000 })),
      'timestamp_out_of_tolerance',
    );
    // A tolerance of the receiver's own.
    assert.equal(
      await refusal(verifyWebhook(delivery.body, header, secret, { now: t + 61_000, toleranceSeconds: 60 })),
      'timestamp_out_of_tolerance',
    );
  });

  test('a malformed header or a changed body is refused, saying which', async () => {
    const delivery = await testDelivery();
    const header = signatureOf(delivery);
    const [, t, v1 = ''] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    for (const malformed of [
      undefined,
      '',
      `t=${t}`,
      `t=${t},v1=${v1.toUpperCase()}`,
      `t=${t},v1=${v1.slice(1)}`,
      `v1=${v1},t=${t}`,
      ` ${header}`,
    ]) {
      assert.equal(
        await refusal(verifyWebhook(delivery.body, malformed, secret)),
        'malformed_header',
        malformed,
      );
    }
    const changed = delivery.body.replace('"webhook.test"', '"release.live"');
    assert.notEqual(changed, delivery.body);
    assert.equal(await refusal(verifyWebhook(changed, header, secret)), 'signature_mismatch');
    assert.equal(await refusal(verifyWebhook(`${delivery.body} `, header, secret)), 'signature_mismatch');
  });

  test('after a secret rotation the old secret is refused and the new one verifies', async () => {
    const { data } = await api.POST('/api/v1/webhooks/{id}/rotate-secret', {
      params: { path: { id: webhookId } },
    });
    const rotated = data.webhook.secret;
    assert.notEqual(rotated, secret);
    const delivery = await testDelivery();
    assert.equal(
      await refusal(verifyWebhook(delivery.body, signatureOf(delivery), secret)),
      'signature_mismatch',
    );
    assert.equal((await verifyWebhook(delivery.body, signatureOf(delivery), rotated)).event, 'webhook.test');
    secret = rotated;
  });

  test('after an outage, recover sends the missed event again, as a verified redelivery', async () => {
    const before = served.receiver.received.length;
    served.receiver.answerWith(() => ({ status: 503 }));
    const since = new Date(Date.now() - 1_000).toISOString();
    const { data: sent } = await api.POST('/api/v1/webhooks/{id}/test', {
      params: { path: { id: webhookId } },
    });
    await served.receiver.waitFor(before + 3, 15_000);
    // The third attempt is logged once the receiver has answered it.
    for (let waited = 0; waited < 5_000; waited += 100) {
      const { data } = await api.GET('/api/v1/webhooks/{id}/deliveries', {
        params: { path: { id: webhookId } },
      });
      if (data.deliveries.filter((attempt) => attempt.event_id === sent.event_id).length === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    served.receiver.answerWith(() => ({ status: 200 }));

    const { data, response } = await api.POST('/api/v1/webhooks/{id}/recover', {
      params: { path: { id: webhookId } },
      body: { since },
    });
    assert.deepEqual([response.status, data], [202, { queued: 1 }]);
    await served.receiver.waitFor(before + 4, 15_000);
    const delivery = served.receiver.received[before + 3] as ReceivedDelivery;
    const event = await verifyWebhook(delivery.body, signatureOf(delivery), secret);
    assert.deepEqual(
      [event.event, event.redelivery, event.event_id, event.id === sent.delivery_id],
      ['webhook.test', true, sent.event_id, false],
    );
  });
});
