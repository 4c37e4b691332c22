import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';

function etagOf(payload: string | Buffer): string {
  return `"${hash('sha1', payload, 'base64url')}"`;
}

function matches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

async function conditionalGet(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (request.method !== 'GET' || reply.statusCode !== 200) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const etag = etagOf(payload);
  reply.header('etag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (!ifNoneMatch || !matches(ifNoneMatch, etag)) return payload;
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  return '';
}

/** `ETag` on every 200 GET; a matching `If-None-Match` turns the answer into a bodiless 304. */
export const etagPlugin = fp(
  async (app: FastifyInstance) => {
    // Attached to GET routes only, so other requests do not pay for the hook.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.includes('GET')) return;
      const existing = route.onSend ? [route.onSend].flat() : [];
      route.onSend = [...existing, conditionalGet as onSendHookHandler];
    });
  },
  { name: 'etag' },
);
