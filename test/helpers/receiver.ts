// A real HTTPS webhook receiver for tests and the bench: it records every delivery with its raw body
// and answers as the test says. Its self-signed certificate names 127.0.0.1, localhost,
// receiver.test and its subdomains (many receiver hosts on one address); the sender trusts it
// through its `ca` option or NODE_EXTRA_CA_CERTS.
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { generate } from 'selfsigned';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** Exactly the bytes that arrived, as text: signatures are checked over this. */
  body: string;
  /** `Date.now()` when the request's body had arrived. */
  receivedAt: number;
  /** `Date.now()` when the answer was sent or the connection closed before it; null while neither. */
  closedAt: number | null;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

export interface Receiver {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** The certificate to trust, PEM. */
  ca: string;
  received: ReceivedDelivery[];
  /** How the receiver answers from now on (200 until told otherwise). */
  answerWith(answer: (delivery: ReceivedDelivery) => ReceiverAnswer): void;
  /** Resolves once `count` deliveries have arrived in all. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

let certificate: Promise<{ cert: string; key: string }> | null = null;

export function receiverCertificate(): Promise<{ cert: string; key: string }> {
  certificate ??= generate([{ name: 'commonName', value: 'receiver.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 30 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: 'receiver.test' },
          { type: 2, value: '*.receiver.test' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return certificate;
}

export async function startReceiver(t?: TestContext): Promise<Receiver> {
  const { cert, key } = await receiverCertificate();
  const received: ReceivedDelivery[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let answer: (delivery: ReceivedDelivery) => ReceiverAnswer = () => ({ status: 200 });

  const server: Server = createServer({ cert, key, keepAliveTimeout: 30_000 }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery: ReceivedDelivery = {
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        closedAt: null,
      };
      response.once('close', () => {
        delivery.closedAt = Date.now();
      });
      received.push(delivery);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const { status, headers = {}, delayMs = 0 } = answer(delivery);
      const reply = () => {
        if (!response.destroyed) response.writeHead(status, headers).end();
      };
      if (delayMs > 0) setTimeout(reply, delayMs).unref();
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t?.after(close);
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    ca: cert,
    received,
    answerWith(next) {
      answer = next;
    },
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`waited ${timeoutMs} ms for ${count} deliveries; ${received.length} came`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close,
  };
}
