import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { isoNow } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { errors } from '../errors.ts';
import { deriveKey, seal, unseal } from '../lib/secret-box.ts';
import { masterSecret } from '../master-secret.ts';
import {
  claimIdempotencyKey,
  deleteIdempotencyRow,
  findIdempotencyRow,
  type IdempotencyClaim,
  type IdempotencyId,
  type IdempotencyRow,
  releaseClaim,
  storeIdempotentResponse,
} from './idempotency.store.ts';

const WINDOW_MS = 24 * 60 * 60 * 1000;
/** A claim still `running` after this long belongs to a process that died mid-request. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;
/** Response headers worth replaying; rate-limit and request-id headers describe the new request. */
const REPLAYED_HEADERS = ['content-type', 'location', 'x-sandbox'];
const MAX_KEY_LENGTH = 255;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdempotencyClaim | null;
  }
}

/**
 * What a repeat must match. A JSON body is compared whole. An upload is streamed to disk as it
 * arrives, never held to be hashed first, so it is compared by its media type (without the
 * multipart boundary, which clients draw anew for each attempt) and its length.
 */
function requestHash(request: FastifyRequest): string {
  const { body: parsed } = request;
  const body =
    parsed === undefined || parsed instanceof Readable ? streamedBodyMark(request) : JSON.stringify(parsed);
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

function streamedBodyMark(request: FastifyRequest): string {
  const { headers } = request;
  if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) return '';
  const mediaType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return `stream ${mediaType} ${headers['content-length'] ?? 'chunked'}`;
}

function replay(reply: FastifyReply, row: IdempotencyRow, body: string): FastifyReply {
  const headers: Record<string, string> = row.headers ? JSON.parse(row.headers) : {};
  return reply
    .code(row.status_code ?? 200)
    .headers(headers)
    .header('idempotent-replayed', 'true')
    .send(body);
}

const holdsSecret = (request: FastifyRequest) => request.routeOptions.config.secretInResponse === true;

function isStale(row: IdempotencyRow, nowMs: number): boolean {
  const age = nowMs - Date.parse(row.created_at);
  return age >= WINDOW_MS || (row.state === 'running' && age >= ABANDONED_AFTER_MS);
}

/**
 * `Idempotency-Key` on keyed POSTs. The claim is a row inserted before the handler runs, so two
 * processes racing on one key never both execute: the loser sees `running` and gets 409.
 */
export const idempotencyPlugin = fp(
  async (app: FastifyInstance, opts: { ctx: AppContext }) => {
    const { db, clock, config } = opts.ctx;
    app.decorateRequest('idempotency', null);
    // Responses that show a secret (a new webhook's) are stored sealed, as the secret itself is.
    let sealKey: Buffer | null = null;
    const responseKey = () => {
      sealKey ??= deriveKey(masterSecret(config), 'idempotent responses');
      return sealKey;
    };
    const storedBody = (request: FastifyRequest, body: string) =>
      holdsSecret(request) ? seal(responseKey(), body) : body;
    const replayedBody = (request: FastifyRequest, row: IdempotencyRow) =>
      holdsSecret(request) && row.body !== null ? unseal(responseKey(), row.body) : (row.body ?? '');

    const claimOrReplay = async (request: FastifyRequest, reply: FastifyReply) => {
      const key = request.headers['idempotency-key'];
      if (request.method !== 'POST' || typeof key !== 'string' || !request.auth) return;
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
        throw errors.invalid('Idempotency-Key', `Idempotency-Key must be 1-${MAX_KEY_LENGTH} characters`);
      }
      const id: IdempotencyId = { apiKeyId: request.auth.key.id, key };
      const hash = requestHash(request);
      for (let attempt = 0; attempt < 2; attempt++) {
        const claimedAt = isoNow(clock);
        if (await claimIdempotencyKey(db, id, hash, claimedAt)) {
          request.idempotency = { ...id, claimedAt };
          return;
        }
        const existing = await findIdempotencyRow(db, id);
        if (!existing) continue;
        if (isStale(existing, clock.now().getTime())) {
          await deleteIdempotencyRow(db, id, existing.created_at);
          continue;
        }
        if (existing.request_hash !== hash) throw errors.idempotencyMismatch();
        if (existing.state === 'running') throw errors.idempotencyInProgress();
        return replay(reply, existing, replayedBody(request, existing));
      }
      throw errors.idempotencyInProgress();
    };

    const storeResponse = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const id = request.idempotency;
      if (!id) return payload;
      request.idempotency = null;
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await releaseClaim(db, id);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await storeIdempotentResponse(db, id, {
        status: reply.statusCode,
        headers,
        body: storedBody(request, payload),
      });
      return payload;
    };

    // Attached to keyed POST routes only, so other requests do not pay for the hooks.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.includes('POST') || route.config?.access === undefined) return;
      route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), claimOrReplay];
      route.onSend = [...(route.onSend ? [route.onSend].flat() : []), storeResponse as onSendHookHandler];
    });
  },
  { name: 'idempotency' },
);
