import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { errors } from '../errors.ts';

export const API_VERSION = '1.1.0';

export function setStandardHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-api-version', API_VERSION);
  reply.header('cache-control', 'no-store');
  reply.header('x-request-id', request.id);
}

/**
 * Headers every response carries, the HTTPS-only rule behind a proxy, and one log line per request
 * with its id, the key prefix and the label.
 */
export const conventionsPlugin = fp(
  async (app: FastifyInstance, opts: { trustProxy: boolean; log: Logger | null }) => {
    // Callback-style hooks: on every request, a promise per hook is a cost worth avoiding.
    app.addHook('onRequest', (request, reply, done) => {
      setStandardHeaders(request, reply);
      const plainBehindProxy = opts.trustProxy && request.headers['x-forwarded-proto'] !== 'https';
      done(plainBehindProxy ? errors.httpsRequired() : undefined);
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
