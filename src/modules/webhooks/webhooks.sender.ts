import { createHmac } from 'node:crypto';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Config } from '../../config.ts';
import { API_VERSION } from '../../http/conventions.ts';
import { remembered } from '../../lib/remembered.ts';
import { addressPolicy, checkUrlShape, guardedLookup, type HostResolver } from './webhooks.address.ts';

/** What one attempt came to: the receiver's status if it answered, and why it failed if it did. */
export interface AttemptResult {
  status: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
  close(): void;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" under the secret>` (the scheme Stripe uses). */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

function outcomeOf(status: number, location: string | undefined): Pick<AttemptResult, 'ok' | 'error'> {
  if (status >= 200 && status < 300) return { ok: true, error: null };
  if (status >= 300 && status < 400) {
    // The receiver chooses the Location; the log keeps a bounded part of it.
    const target = location ? ` to ${location.slice(0, 200)}` : '';
    return { ok: false, error: `redirect${target} not followed` };
  }
  return { ok: false, error: `the receiver answered ${status}` };
}

/** Options of the connections to receivers. */
export interface SenderOptions {
  /** Trusted roots in place of the system's (tests). */
  ca?: string | Buffer;
  /** Open sockets at most, across receivers. */
  maxSockets: number;
  /** Open sockets to one receiver host at most. */
  maxSocketsPerHost: number;
  /** A socket left unused this long is closed (4 s, or less when the receiver's Keep-Alive says so). */
  idleSocketMs?: number;
}

/**
 * Shorter than the usual keep-alive of servers (5 s in Node, more in nginx), so that we close an idle
 * connection before the receiver does and never write a delivery into a socket being closed.
 */
const IDLE_SOCKET_MS = 4000;

function socketsOf(pool: NodeJS.ReadOnlyDict<unknown[]>): number {
  return Object.values(pool).reduce((sum, sockets) => sum + (sockets?.length ?? 0), 0);
}

/**
 * At the cap of open sockets, a delivery to a receiver with no free socket would wait for one to
 * close on its own (up to the idle timeout, counted against its own timeout): an idle socket, the
 * first the agent's free pools hold, makes room for it instead. Which one matters little: each
 * is idle, and the next delivery to its receiver opens another.
 */
function makeRoom(agent: https.Agent, maxSockets: number): void {
  if (socketsOf(agent.sockets) + socketsOf(agent.freeSockets) < maxSockets) return;
  const idle = Object.values(agent.freeSockets).find((sockets) => sockets?.length);
  idle?.[0]?.destroy();
}

/**
 * Posts deliveries over HTTPS. The address is checked before every attempt; a host name is resolved
 * once per connection by `guardedLookup`, which hands the socket only the addresses it checked.
 * Redirects are never followed. `ca` replaces the trusted roots (tests); operators add theirs with
 * NODE_EXTRA_CA_CERTS. Connections are kept alive between deliveries, within the caps of `options`.
 */
export function createWebhookSender(
  config: Pick<Config, 'baseUrl' | 'shortLinkBase' | 'webhookAllowCidrs' | 'webhookTimeoutMs'>,
  resolveHost: HostResolver,
  options: SenderOptions,
): WebhookSender {
  const policy = addressPolicy(config);
  // Node's agent, when a socket frees up while a request to another host waits, opens that request's
  // socket before the freed one leaves its pool: one over its cap, so it is given one less.
  const agentCap = Math.max(1, options.maxSockets - 1);
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: options.maxSocketsPerHost,
    maxTotalSockets: agentCap,
    // The agent's timeout closes a socket once it sits in the free pool that long; a delivery in
    // flight has its own timer (below).
    timeout: options.idleSocketMs ?? IDLE_SOCKET_MS,
    scheduling: 'lifo',
    lookup: guardedLookup(policy, resolveHost),
    ...(options.ca !== undefined && { ca: options.ca }),
  });

  function post(url: URL, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...result, durationMs: elapsed() });
      };
      makeRoom(agent, agentCap);
      const request = https.request(url, {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      });
      const timer = setTimeout(() => {
        settle({ status: null, ok: false, error: `no answer within ${config.webhookTimeoutMs} ms` });
        request.destroy();
      }, config.webhookTimeoutMs);
      request.on('response', (response) => {
        settle({
          status: response.statusCode ?? null,
          ...outcomeOf(response.statusCode ?? 0, response.headers.location),
        });
        // The body is not needed, but reading it to the end frees the connection for the next delivery.
        response.resume();
        response.on('close', () => clearTimeout(timer));
      });
      request.on('error', (error) => {
        clearTimeout(timer);
        settle({ status: null, ok: false, error: failureReason(error) });
      });
      request.end(body);
    });
  }

  // The checks that need no DNS depend on the address text alone and the policy, fixed for the
  // sender's life, so each address is judged once; name resolution is checked per connection.
  const shapeOf = remembered(1000, (url): URL | string => {
    try {
      return checkUrlShape(url, policy);
    } catch (error) {
      return failureReason(error);
    }
  });

  return {
    async send(url, headers, body) {
      const target = shapeOf(url);
      if (typeof target === 'string') return { status: null, ok: false, durationMs: 0, error: target };
      return post(
        target,
        { 'content-type': 'application/json', 'user-agent': `Labeldesk-Webhooks/${API_VERSION}`, ...headers },
        body,
      );
    },
    close() {
      agent.destroy();
    },
  };
}
