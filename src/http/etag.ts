import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { MaybePromise } from '../lib/maybe-promise.ts';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** HEAD answers as GET does, without the body. */
const CONDITIONAL_METHODS: readonly string[] = ['GET', 'HEAD'];

/** A strong tag naming exactly this body: a route that keeps a body keeps its tag with it. */
export function etagOf(payload: string | Buffer): string {
  return `"${hash('sha1', payload, 'base64url')}"`;
}

/** A serialized JSON body with its tag, for a route that keeps its answer between requests. */
export interface Representation {
  readonly json: string;
  readonly etag: string;
}

export function representationOf(json: string): Representation {
  return { json, etag: etagOf(json) };
}

/** What turns a body into JSON by a route's response schema: the route's reply. */
export type Serializer = Pick<FastifyReply, 'serialize'>;

/** A body as the route's response schema serializes it. */
export function serializedBody(serializer: Serializer, body: unknown): string {
  const json = serializer.serialize(body);
  if (typeof json !== 'string') throw new Error('a JSON route serialized its body to binary');
  return json;
}

function send(reply: FastifyReply, { json, etag }: Representation): void {
  reply.header('etag', etag).type(JSON_CONTENT_TYPE).send(json);
}

async function sendWhenReady(reply: FastifyReply, pending: Promise<Representation>): Promise<void> {
  send(reply, await pending);
  await reply;
}

/**
 * Sends a kept representation as is: no second serialization, and the tag is not computed again.
 * A handler returns what this returns: nothing when it sent at once, else a promise of the sending.
 */
export function sendRepresentation(
  reply: FastifyReply,
  representation: MaybePromise<Representation>,
): Promise<void> | undefined {
  if (representation instanceof Promise) return sendWhenReady(reply, representation);
  send(reply, representation);
  return undefined;
}

function matches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

/** A route may tag its answer itself, with a tag it derived from exactly this body (`representationOf`). */
function tagOf(reply: FastifyReply, payload: string | Buffer): string {
  const set = reply.getHeader('etag');
  if (typeof set === 'string') return set;
  const etag = etagOf(payload);
  reply.header('etag', etag);
  return etag;
}

/** A streamed body cannot be hashed before it is sent: only a route's own tag makes it conditional. */
function streamTag(reply: FastifyReply): string | null {
  const set = reply.getHeader('etag');
  return typeof set === 'string' ? set : null;
}

function conditionalPayload(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (!CONDITIONAL_METHODS.includes(request.method) || reply.statusCode !== 200) return payload;
  const streamed = payload instanceof Readable;
  if (!streamed && typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const etag = streamed ? streamTag(reply) : tagOf(reply, payload);
  const ifNoneMatch = request.headers['if-none-match'];
  if (etag === null || !ifNoneMatch || !matches(ifNoneMatch, etag)) return payload;
  if (streamed) payload.destroy();
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  return '';
}

// Callback style: a hook on every GET should not cost a promise.
const conditionalGet: onSendHookHandler = (request, reply, payload, done) => {
  done(null, conditionalPayload(request, reply, payload));
};

/**
 * `ETag` on every 200 GET (and HEAD), from a hash of the body unless the route already tagged it; a matching
 * `If-None-Match` turns the answer into a bodiless 304.
 */
export const etagPlugin = fp(
  async (app: FastifyInstance) => {
    // Attached to GET and HEAD routes only, so other requests do not pay for the hook.
    app.addHook('onRoute', (route) => {
      const methods: readonly string[] = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.some((method) => CONDITIONAL_METHODS.includes(method))) return;
      const existing = route.onSend ? [route.onSend].flat() : [];
      // First among the route's own hooks: Fastify's HEAD hook, which drops the body, comes after it.
      route.onSend = [conditionalGet, ...existing];
    });
  },
  { name: 'etag' },
);
