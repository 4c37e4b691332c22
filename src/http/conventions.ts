import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { errors } from '../errors.ts';
import { carriesSandboxKey } from './bearer.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether a peer address is one of the TRUST_PROXY proxies; always false without them. */
    isTrustedProxy: (address: string | undefined) => boolean;
  }
}

export const API_VERSION = '1.1.0';

/** A year, the value browsers' preload rules ask for; subdomains are left to whoever owns them. */
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** The protocol the nearest proxy saw (a proxy appends its own to what came before it). */
function forwardedProto(request: FastifyRequest): string | undefined {
  const header = request.headers['x-forwarded-proto'];
  const value = Array.isArray(header) ? header.at(-1) : header;
  return value?.split(',').at(-1)?.trim().toLowerCase();
}

/**
 * Whether the request reached us over HTTPS: over our own TLS, or from a trusted proxy that says
 * so. The header is read only when the immediate peer is a trusted proxy, so a direct client
 * cannot claim it. (Asked of the socket, not of Fastify's `request.protocol`: the request of a
 * framework error, a path that is not valid URL encoding, ignores the proxy setting.)
 */
function cameOverHttps(request: FastifyRequest): boolean {
  const { socket } = request.raw;
  if ('encrypted' in socket && socket.encrypted === true) return true;
  return request.server.isTrustedProxy(socket.remoteAddress) && forwardedProto(request) === 'https';
}

/**
 * Headers every response carries, framework errors included. `X-Sandbox` follows the key's shape,
 * so an unknown or revoked sandbox key's 401 carries it too.
 */
export function setStandardHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-api-version', API_VERSION);
  reply.header('cache-control', 'no-store');
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (cameOverHttps(request)) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  if (carriesSandboxKey(request)) reply.header('x-sandbox', 'true');
}

/**
 * Headers every response carries, the HTTPS-only rule behind a proxy, and one log line per request
 * with its id, the key prefix and the label.
 */
export const conventionsPlugin = fp(
  async (
    app: FastifyInstance,
    opts: { isTrustedProxy: ((address: string | undefined) => boolean) | null; log: Logger | null },
  ) => {
    app.decorate('isTrustedProxy', opts.isTrustedProxy ?? (() => false));
    const httpsOnly = opts.isTrustedProxy !== null;
    // Callback-style hooks: on every request, a promise per hook is a cost worth avoiding.
    app.addHook('onRequest', (request, reply, done) => {
      setStandardHeaders(request, reply);
      // Behind a proxy the listener is plain: a request that did not come through a trusted proxy
      // as HTTPS was sent in the clear.
      done(httpsOnly && !cameOverHttps(request) ? errors.httpsRequired() : undefined);
    });
    // While the server drains, a response to a request that was in flight ends its connection, so
    // that a keep-alive client opens its next one elsewhere instead of on a socket about to close.
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });

    const { log } = opts;
    if (!log) return;
    app.addHook('onResponse', (request, reply, done) => {
      log.info(
        {
          req_id: request.id,
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          ip: request.ip,
          key_prefix: request.auth?.key.prefix ?? null,
          label_id: request.auth?.label.id ?? null,
        },
        'request',
      );
      done();
    });
  },
  { name: 'conventions' },
);
