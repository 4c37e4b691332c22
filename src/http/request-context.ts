import type { Authenticated } from '../modules/keys/index.ts';
import type { Scope } from '../modules/plans/index.ts';
import type { RateDecision } from './rate-limiter.ts';

/** What a route declares about access: a scope, any valid key, or (absent) public. */
export type RouteAccess = Scope | 'any_key';

/** The caller as the key cache loaded it: the same object for every request until its key or label changes. */
export type RequestAuth = Authenticated;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope the route needs, or `any_key`; a route without it is public. */
    access?: RouteAccess;
    /** Per-address requests per minute for a public route (GET /status). */
    perAddressPerMinute?: number;
    /**
     * Requests per minute on one object of the caller's label, the `:id` of the path; routes naming
     * the same `object` share its budget (a webhook's tests and redeliveries).
     */
    perObjectPerMinute?: { limit: number; object: string };
    /** The response shows a secret: an idempotent replay keeps it only encrypted. */
    secretInResponse?: true;
    /**
     * A POST that changes nothing (validating a release): an Idempotency-Key is ignored rather than
     * stored, so a repeat after the label fixed something sees the release as it is now.
     */
    changesNothing?: true;
  }
  interface FastifyRequest {
    auth: RequestAuth | null;
    /** This request's place in its key's rate budget; null where the rate is unlimited or the route public. */
    rate: RateDecision | null;
  }
}

/** The authenticated caller of a keyed route; the auth hook has run before any handler that calls this. */
export function authOf(request: { auth: RequestAuth | null }): RequestAuth {
  if (!request.auth) throw new Error('authOf() called on a route without an access declaration');
  return request.auth;
}
