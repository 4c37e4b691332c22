import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../errors.ts';

/**
 * The path (`title`, `featured_artists/0/name`) of the first string in `value` holding a NUL
 * character, or null. PostgreSQL cannot store NUL in text, and no field of ours means it.
 */
export function nulCharacterPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = nulCharacterPath(item, path ? `${path}/${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

export function assertNoNulCharacter(field: string, value: unknown): void {
  const path = nulCharacterPath(value, field);
  if (path !== null) throw errors.invalid(path, `${path} must not contain the NUL character`);
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

/** Attached to the routes that take a query string or a JSON body. */
export const textInputPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      if (!route.schema?.querystring && !route.schema?.body) return;
      route.preValidation = [
        ...(route.preValidation ? [route.preValidation].flat() : []),
        refuseNulCharacters,
      ];
    });
  },
  { name: 'text-input' },
);
