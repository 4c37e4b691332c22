import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../errors.ts';

/** Far deeper than any body of ours nests (a release's featured artists are three levels down). */
const MAX_NESTING = 32;

interface Pending {
  value: unknown;
  path: string;
  depth: number;
}

/**
 * Refuses a string holding a NUL character (PostgreSQL cannot store NUL in text, and no field of
 * ours means it), naming its path (`title`, `featured_artists/0/name`), and a value nested deeper
 * than MAX_NESTING. Walked with a stack, not recursion: 100 KB of `[` would overflow the call stack.
 */
export function assertNoNulCharacter(field: string, value: unknown): void {
  const pending: Pending[] = [{ value, path: field, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (!next.value.includes('\u0000')) continue;
      const path = next.path || 'body';
      throw errors.invalid(path, `${path} must not contain the NUL character`);
    }
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth === MAX_NESTING) {
      const path = field || 'body';
      throw errors.invalid(path, `${path} is nested deeper than ${MAX_NESTING} levels`);
    }
    // Reversed onto the stack so the first offending value in document order is the one named.
    for (const [key, item] of Object.entries(next.value).reverse()) {
      pending.push({ value: item, path: next.path ? `${next.path}/${key}` : key, depth: next.depth + 1 });
    }
  }
}

const refuseNulCharacters: preValidationHookHandler = (request: FastifyRequest, _reply, done) => {
  try {
    assertNoNulCharacter('', request.query);
    if (typeof request.body === 'object' && request.body !== null && !Buffer.isBuffer(request.body)) {
      if (!('pipe' in request.body)) assertNoNulCharacter('', request.body);
    }
    done();
  } catch (error) {
    done(error as Error);
  }
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Attached to the routes that take a query string or a body. A route without a body schema still
 * has a JSON body parsed, and later hooks read it whole (idempotency hashes it).
 */
export const textInputPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const methods = [route.method].flat();
      const takesBody = methods.some((method) => BODY_METHODS.has(method));
      if (!route.schema?.querystring && !route.schema?.body && !takesBody) return;
      route.preValidation = [
        ...(route.preValidation ? [route.preValidation].flat() : []),
        refuseNulCharacters,
      ];
    });
  },
  { name: 'text-input' },
);
