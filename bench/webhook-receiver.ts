// The webhook bench's receiver, a child process of bench/webhooks.ts with an IPC channel: HTTPS on
// the loopback address with the certificate its parent sends, a 204 for every delivery at once, and
// each delivery's signature checked as an integrator would (HMAC-SHA256 over `${t}.${rawBody}`
// with the webhook's secret). Arrivals go back to the parent in batches.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type Arrival, asToReceiver, type FromReceiver } from './webhook-messages.ts';

/** Arrivals wait at most this long, or until there are this many, before they go to the parent. */
const FLUSH_AFTER_MS = 10;
const FLUSH_AT = 500;
/** As the spec tells receivers: refuse timestamps older than five minutes. */
const TOLERANCE_S = 300;
const SIGNATURE = /^t=(\d+),v1=([0-9a-f]{64})$/;

function send(message: FromReceiver): void {
  if (!process.send) throw new Error('the receiver must be started with an IPC channel');
  process.send(message);
}

let secrets: Record<string, string> = {};
let pending: Arrival[] = [];
let flushTimer: NodeJS.Timeout | null = null;

function flush(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  if (pending.length === 0) return;
  send({ type: 'arrivals', arrivals: pending });
  pending = [];
}

function record(arrival: Arrival): void {
  pending.push(arrival);
  if (pending.length >= FLUSH_AT) flush();
  else flushTimer ??= setTimeout(flush, FLUSH_AFTER_MS);
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return typeof value === 'string' ? value : '';
}

function signatureHolds(secret: string | undefined, signature: string, body: string, now: number): boolean {
  const match = SIGNATURE.exec(signature);
  if (!secret || !match?.[1] || !match[2]) return false;
  if (Math.abs(now / 1000 - Number(match[1])) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}

/** The body's `id` and `event` agree with the headers; the event's bench sequence number, or -1. */
function readBody(headers: IncomingHttpHeaders, body: string): { consistent: boolean; seq: number } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return { consistent: false, seq: -1 };
    const { id, event, data } = parsed as { id?: unknown; event?: unknown; data?: { bench_seq?: unknown } };
    const seq = typeof data?.bench_seq === 'number' ? data.bench_seq : -1;
    const consistent =
      id === header(headers, 'x-service-delivery-id') && event === header(headers, 'x-service-event');
    return { consistent: consistent && seq >= 0, seq };
  } catch {
    return { consistent: false, seq: -1 };
  }
}

function listen(cert: string, key: string): void {
  const server: Server = createServer({ cert, key, keepAliveTimeout: 60_000 }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      response.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      const { consistent, seq } = readBody(request.headers, body);
      record({
        deliveryId: header(request.headers, 'x-service-delivery-id'),
        seq,
        path,
        consistent,
        signed: signatureHolds(secrets[path], header(request.headers, 'x-service-signature'), body, at),
        at,
      });
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the receiver has no port');
    send({ type: 'listening', port: address.port });
  });
}

process.on('message', (raw: unknown) => {
  const message = asToReceiver(raw);
  if (message?.type === 'listen') listen(message.cert, message.key);
  if (message?.type === 'secrets') {
    secrets = message.secrets;
    send({ type: 'ready' });
  }
});
// The parent is gone (it finished, or died): nothing is left to report to.
process.on('disconnect', () => process.exit(0));
