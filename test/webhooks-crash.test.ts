// The crash test of the durable job queue: `labeldesk serve` runs as a child process, is killed with
// SIGKILL while webhook deliveries are on the wire, and is started again on the same installation.
// Every event whose publication was acknowledged (202) must then reach the receiver at least once.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Stripe from 'stripe';
import {
  cliJson,
  type Installation,
  newInstallation,
  type Server,
  selectRows,
  send,
  startServer,
} from './helpers/installation.ts';
import { type ReceivedDelivery, receiverCertificate, startReceiver } from './helpers/receiver.ts';

/** The most tests one webhook takes in a minute. */
const EVENTS = 10;
/** Deliveries the receiver answers at once before the kill: some work is finished when the crash comes. */
const ANSWERED_BEFORE_KILL = 5;
/**
 * The receiver holds every later delivery far longer than the child lives, so those are in flight when
 * it is killed. The sender gives up on a held delivery after WEBHOOK_TIMEOUT and would log a failure and
 * schedule a retry: that is the retry path, not a crash, so the kill must come well within the timeout
 * (checked below). A claim's lease is 2 * WEBHOOK_TIMEOUT + 5 s = 11 s: what the restarted server waits
 * before it takes over the deliveries the dead one held.
 */
const WEBHOOK_TIMEOUT = '3s';
const HOLD_MS = 60_000;
const DELIVERED_WITHIN_MS = 30_000;

const stripe = new Stripe('sk_test_unused');

/** `labeldesk ...args --json`, which must succeed; returns the parsed output. */
async function waitFor(what: string, ready: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(50);
  }
}

/** The delivery jobs in the installation's queue, counted from outside the server. */
async function queuedDeliveries(install: Installation): Promise<number> {
  const [row] = await selectRows<{ n: number | string }>(
    install,
    "select count(*) as n from jobs where kind = 'webhook.delivery'",
  );
  return Number(row?.n);
}

function deliveryIdOf(delivery: ReceivedDelivery): string {
  return String(delivery.headers['x-service-delivery-id']);
}

interface Queued {
  delivery_id: string;
  event_id: number;
}

test('serve killed with SIGKILL mid-delivery: after a restart every committed event is delivered', async (t) => {
  const started = Date.now();
  const install = await newInstallation('webhooks_crash');
  const servers: Server[] = [];
  // Registered before the receiver's own clean-up, so it runs first (after-hooks run in order).
  t.after(async () => {
    for (const server of servers) await server.kill();
    await install.dispose();
  });
  const receiver = await startReceiver(t);
  const caFile = join(install.dataDir, 'receiver-ca.pem');
  writeFileSync(caFile, (await receiverCertificate()).cert);
  const env = { NODE_EXTRA_CA_CERTS: caFile, WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32', WEBHOOK_TIMEOUT };

  // An operator's set-up through the command line: a label on the Label plan and a key.
  const { label } = await cliJson<{ label: { id: number } }>(install, [
    'label',
    'create',
    '--name',
    'Crash Test Records',
    '--plan',
    'label',
    '--contract-signed',
  ]);
  const { key } = await cliJson<{ key: string }>(install, [
    'key',
    'create',
    '--label',
    String(label.id),
    '--scopes',
    'all',
  ]);

  const first = await startServer(install, env);
  servers.push(first);
  const apiCa = readFileSync(join(install.dataDir, 'tls', 'localhost-cert.pem'), 'utf8');
  const api = (method: string, path: string, json?: unknown) =>
    send(
      method,
      { protocol: 'https', port: first.port, path: `/api/v1${path}` },
      { headers: { authorization: `Bearer ${key}` }, ca: apiCa, json },
    );

  const created = await api('POST', '/webhooks', {
    url: `${receiver.origin}/hooks/crash`,
    events: ['webhook.test'],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const webhook = (created.body as { webhook: { id: number; secret: string } }).webhook;

  // The first few deliveries are answered at once; every later one is held.
  let answered = 0;
  receiver.answerWith(() => {
    if (answered === ANSWERED_BEFORE_KILL) return { status: 200, delayMs: HOLD_MS };
    answered += 1;
    return { status: 200 };
  });

  // Each acknowledged test call is a committed event, its delivery queued in the same transaction.
  const queued = await Promise.all(
    Array.from({ length: EVENTS }, async () => {
      const reply = await api('POST', `/webhooks/${webhook.id}/test`);
      assert.equal(reply.status, 202, JSON.stringify(reply.body));
      return reply.body as Queued;
    }),
  );
  const eventOfDelivery = new Map(queued.map((q) => [q.delivery_id, q.event_id]));
  assert.equal(new Set(queued.map((q) => q.event_id)).size, EVENTS);
  assert.equal(eventOfDelivery.size, EVENTS);

  // Every event is committed; kill as soon as a delivery is on the wire, unanswered.
  await waitFor('a delivery in flight', () => receiver.received.length > ANSWERED_BEFORE_KILL, 5000);
  const firstHeld = receiver.received[ANSWERED_BEFORE_KILL]?.receivedAt ?? Date.now();
  assert.equal(await first.kill(), 'SIGKILL');
  const killedAfterMs = Date.now() - firstHeld;
  const receivedBeforeKill = receiver.received.length;
  receiver.answerWith(() => ({ status: 200 }));

  // What the dead server left: deliveries still queued, fewer successes logged than events, and no
  // failure (no timeout had fired, so this is the crash path and not the retry path).
  const queuedAtKill = await queuedDeliveries(install);
  const logged = await selectRows<{ ok: number }>(install, 'select ok from webhook_attempts');
  const loggedOk = logged.filter((attempt) => attempt.ok === 1).length;
  assert.ok(receivedBeforeKill > ANSWERED_BEFORE_KILL, 'a delivery was unanswered at the kill');
  assert.ok(queuedAtKill > 0, 'deliveries were still queued at the kill');
  assert.ok(loggedOk < EVENTS, 'not every delivery was acknowledged at the kill');
  assert.equal(logged.length, loggedOk, `an attempt failed before the kill (${killedAfterMs} ms in)`);

  // The restarted server takes over what the dead one held once the leases run out, and records it.
  const restarted = Date.now();
  servers.push(await startServer(install, env));
  const delivered = () => new Set(receiver.received.map(deliveryIdOf));
  await waitFor(
    'every queued delivery to arrive',
    () => [...eventOfDelivery.keys()].every((id) => delivered().has(id)),
    DELIVERED_WITHIN_MS,
  );
  const deliveredAfterMs = Date.now() - restarted;
  // Deliveries that reached the receiver unanswered before the kill count as arrived above, but their
  // jobs stay leased until the lease runs out: the queue empties only once they have been sent again.
  await waitFor(
    'the delivery queue to empty',
    async () => (await queuedDeliveries(install)) === 0,
    DELIVERED_WITHIN_MS,
  );

  // Every request that arrived, before the kill or after, is a correctly signed delivery of a queued event.
  for (const delivery of receiver.received) {
    const id = deliveryIdOf(delivery);
    assert.ok(eventOfDelivery.has(id), `unknown delivery id ${id}`);
    assert.equal(delivery.path, '/hooks/crash');
    assert.equal(delivery.headers['x-service-event'], 'webhook.test');
    const verified = stripe.webhooks.constructEvent(
      delivery.body,
      String(delivery.headers['x-service-signature']),
      webhook.secret,
    ) as unknown as { id: string; event: string };
    assert.deepEqual({ id: verified.id, event: verified.event }, { id, event: 'webhook.test' });
  }

  // No event lost: every committed event reached the receiver at least once; duplicates are allowed.
  const deliveredEvents = [...delivered()].map((id) => eventOfDelivery.get(id) ?? 0);
  assert.deepEqual(
    deliveredEvents.sort((a, b) => a - b),
    queued.map((q) => q.event_id).sort((a, b) => a - b),
  );
  // And acknowledged: every delivery has a 2xx answer on record, which the requests left hanging by
  // the kill could only get by being sent again after the restart.
  const acknowledged = await selectRows<{ delivery_id: string }>(
    install,
    'select delivery_id from webhook_attempts where ok = 1',
  );
  const acknowledgedIds = new Set(acknowledged.map((row) => row.delivery_id));
  assert.deepEqual(
    [...eventOfDelivery.keys()].filter((id) => !acknowledgedIds.has(id)),
    [],
    'every delivery answered 2xx and logged',
  );
  const heldAtKill = receiver.received.slice(ANSWERED_BEFORE_KILL, receivedBeforeKill).map(deliveryIdOf);
  const sentAfterRestart = new Set(receiver.received.slice(receivedBeforeKill).map(deliveryIdOf));
  assert.deepEqual(
    heldAtKill.filter((id) => !sentAfterRestart.has(id)),
    [],
    'the deliveries in flight at the kill were sent again',
  );
  t.diagnostic(
    `at the kill (${killedAfterMs} ms after the first held delivery arrived): ` +
      `${receivedBeforeKill} requests received, ${ANSWERED_BEFORE_KILL} answered, ` +
      `${receivedBeforeKill - ANSWERED_BEFORE_KILL} in flight; ${loggedOk} logged ok; ${queuedAtKill} still queued`,
  );
  t.diagnostic(
    `after the restart: all ${EVENTS} events delivered within ${deliveredAfterMs} ms; ` +
      `${receiver.received.length} requests in all, ${receiver.received.length - delivered().size} duplicate(s); ` +
      `${Date.now() - started} ms in all`,
  );
});
