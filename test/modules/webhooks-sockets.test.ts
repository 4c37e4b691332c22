import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { createWebhookSender } from '../../src/modules/webhooks/webhooks.sender.ts';
import { buildHarness } from '../helpers/harness.ts';
import { receiverCertificate } from '../helpers/receiver.ts';
import { LOOPBACK_RECEIVERS } from '../helpers/webhooks.ts';

const MAX_SOCKETS = 8;
const MAX_SOCKETS_PER_HOST = 2;
const IDLE_SOCKET_MS = 300;

/** An HTTPS receiver for every `*.receiver.test` host, counting the connections it holds open. */
async function countingReceiver(t: import('node:test').TestContext) {
  const { cert, key } = await receiverCertificate();
  const open = new Map<string, number>();
  const counts = { open: 0, most: 0, mostToOneHost: 0 };
  // Keeps connections as long as the client wants: any closing is the sender's.
  const server = createServer({ cert, key, keepAliveTimeout: 60_000 }, (request, response) => {
    request.resume();
    request.on('end', () => setTimeout(() => response.end(), 20));
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    const host = String(socket.servername);
    open.set(host, (open.get(host) ?? 0) + 1);
    counts.open += 1;
    counts.most = Math.max(counts.most, counts.open);
    counts.mostToOneHost = Math.max(counts.mostToOneHost, open.get(host) ?? 0);
    // Closed once the sender says so (its FIN), not once the server has finished closing too.
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      open.set(host, (open.get(host) ?? 1) - 1);
      counts.open -= 1;
    };
    socket.on('end', close);
    socket.on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, ca: cert, counts };
}

test('outgoing connections stay within the caps across many receiver hosts, and idle ones are closed', async (t) => {
  const h = await buildHarness(t, {
    env: LOOPBACK_RECEIVERS,
    resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  const receiver = await countingReceiver(t);
  const sender = createWebhookSender(h.ctx.config, h.ctx.resolveHost, {
    ca: receiver.ca,
    maxSockets: MAX_SOCKETS,
    maxSocketsPerHost: MAX_SOCKETS_PER_HOST,
    idleSocketMs: IDLE_SOCKET_MS,
  });
  t.after(() => sender.close());
  const send = (host: string) =>
    sender.send(`https://${host}.receiver.test:${receiver.port}/hook`, {}, '{}').then((result) => result.ok);

  const manyHosts = Array.from({ length: 60 }, (_, n) => `side-by-side-${n}`);
  assert.ok((await Promise.all(manyHosts.map(send))).every(Boolean), 'sixty hosts at once');
  for (let n = 0; n < 30; n += 1) assert.equal(await send(`one-after-another-${n}`), true);
  const oneHost = Array.from({ length: 20 }, () => 'busy');
  assert.ok((await Promise.all(oneHost.map(send))).every(Boolean), 'twenty deliveries to one host at once');

  assert.ok(receiver.counts.most <= MAX_SOCKETS, `${receiver.counts.most} sockets open at once`);
  assert.ok(
    receiver.counts.mostToOneHost <= MAX_SOCKETS_PER_HOST,
    `${receiver.counts.mostToOneHost} to one host`,
  );
  const deadline = Date.now() + 10_000;
  while (receiver.counts.open > 0 && Date.now() < deadline) await sleep(20);
  assert.equal(receiver.counts.open, 0, 'idle sockets are closed');
});
