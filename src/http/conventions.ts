import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { errors } from '../errors.ts';
import { carriesSandboxKey } from './bearer.ts';

export const API_VERSION = '1.1.0';

/** A year, the value browsers' preload rules ask for; subdomains are left to whoever owns them. */
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/**
 * Whether the request reached us over HTTPS: over our own TLS, or from a trusted proxy that says
 * so in X-Forwarded-Proto. Fastify consults the header only when the immediate peer is one of the
 * TRUST_PROXY addresses, so a direct client cannot claim it.
 */
function cameOverHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
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
  async (app: FastifyInstance, opts: { httpsOnly: boolean; log: Logger | null }) => {
    // Callback-style hooks: on every request, a promise per hook is a cost worth avoiding.
    app.addHook('onRequest', (request, reply, done) => {
      setStandardHeaders(request, reply);
      // Behind a proxy the listener is plain: a request that did not come through a trusted proxy
      // as HTTPS was sent in the clear.
      done(opts.httpsOnly && !cameOverHttps(request) ? errors.httpsRequired() : undefined);
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
