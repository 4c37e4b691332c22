import { createHash } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import fp from 'fastify-plugin';
import { isoNow } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { readJson } from '../db/json-column.ts';
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
  interface FastifyContextConfig {
    /**
     * The body is an upload, streamed to disk as it arrives: the key is claimed once the content is
     * received (`bindIdempotencyKey`), so that it is bound to the content's hash. Also on PUT.
     */
    idempotentUpload?: true;
  }
  interface FastifyRequest {
    idempotency: IdempotencyClaim | null;
    /** On an upload route with a key: claims it for the received content, or replays its answer. */
    claimUploadKey: ((content: string) => Promise<void>) | null;
  }
}

/** What a repeat must match: the method, the path with its query, and the JSON body whole. */
function requestHash(request: FastifyRequest, body: string): string {
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

const jsonBodyOf = (request: FastifyRequest) =>
  request.body === undefined ? '' : JSON.stringify(request.body);

/** Thrown by `bindIdempotencyKey` when the upload repeats a finished one: its answer is sent again. */
class StoredAnswer extends Error {
  constructor(readonly send: (reply: FastifyReply) => FastifyReply) {
    super('the stored answer of an idempotent repeat');
  }
}

/**
 * Binds the request's Idempotency-Key to the upload once it is received and before anything is
 * stored: `content` names what was received (the file's SHA-256, with whatever else of the form
 * the answer depends on). The same key with other content is 422 `idempotency_mismatch`; with the
 * same content, the first answer is sent again with `Idempotent-Replayed: true`.
 */
export async function bindIdempotencyKey(request: FastifyRequest, content: string): Promise<void> {
  await request.claimUploadKey?.(content);
}

/** An upload route's handler, answering a repeat with the stored answer once its content is known. */
function replayingStoredAnswers(handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function (this: FastifyInstance, request, reply) {
    try {
      return await handler.call(this, request, reply);
    } catch (error) {
      if (error instanceof StoredAnswer) return error.send(reply);
      throw error;
    }
  };
}

function replay(reply: FastifyReply, row: IdempotencyRow, body: string): FastifyReply {
  const headers = row.headers ? readJson(row.headers) : {};
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
    app.decorateRequest('claimUploadKey', null);
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

    const idOf = (request: FastifyRequest): IdempotencyId | null => {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || !request.auth) return null;
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
        throw errors.invalid('Idempotency-Key', `Idempotency-Key must be 1-${MAX_KEY_LENGTH} characters`);
      }
      return { apiKeyId: request.auth.key.id, key };
    };

    /** Claims the key for this request; the finished answer when it is a repeat. */
    const claim = async (
      request: FastifyRequest,
      id: IdempotencyId,
      hash: string,
    ): Promise<IdempotencyRow | null> => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const claimedAt = isoNow(clock);
        if (await claimIdempotencyKey(db, id, hash, claimedAt)) {
          request.idempotency = { ...id, claimedAt };
          return null;
        }
        const existing = await findIdempotencyRow(db, id);
        if (!existing) continue;
        if (isStale(existing, clock.now().getTime())) {
          await deleteIdempotencyRow(db, id, existing.created_at);
          continue;
        }
        if (existing.request_hash !== hash) throw errors.idempotencyMismatch();
        if (existing.state === 'running') throw errors.idempotencyInProgress();
        return existing;
      }
      throw errors.idempotencyInProgress();
    };

    const claimOrReplay = async (request: FastifyRequest, reply: FastifyReply) => {
      const id = request.method === 'POST' ? idOf(request) : null;
      if (!id) return;
      const finished = await claim(request, id, requestHash(request, jsonBodyOf(request)));
      if (finished) return replay(reply, finished, replayedBody(request, finished));
    };

    const awaitUploadContent = async (request: FastifyRequest) => {
      const id = idOf(request);
      if (!id) return;
      request.claimUploadKey = async (content) => {
        const finished = await claim(request, id, requestHash(request, `upload ${content}`));
        if (finished) {
          throw new StoredAnswer((reply) => replay(reply, finished, replayedBody(request, finished)));
        }
      };
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

    // Attached to keyed POST routes that change something and to upload routes only, so other
    // requests do not pay for the hooks.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const upload = route.config?.idempotentUpload === true;
      if ((!methods.includes('POST') && !upload) || route.config?.access === undefined) return;
      if (route.config.changesNothing) return;
      const preHandler = upload ? awaitUploadContent : claimOrReplay;
      route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), preHandler];
      route.onSend = [...(route.onSend ? [route.onSend].flat() : []), storeResponse as onSendHookHandler];
      if (upload) route.handler = replayingStoredAnswers(route.handler);
    });
  },
  { name: 'idempotency' },
);
