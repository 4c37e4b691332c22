import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { AppContext } from '../context.ts';
import { errors } from '../errors.ts';
import { addressAllowed, addressBucket } from '../lib/ip-allow-list.ts';
import { chain, type MaybePromise, settle } from '../lib/maybe-promise.ts';
import type { Scope } from '../modules/plans/index.ts';
import { bearerToken } from './bearer.ts';
import type { AuthHooks } from './hooks.ts';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';
import { authOf, type RequestAuth, type RouteAccess } from './request-context.ts';

/** Failed authentications allowed per client address and minute. */
const FAILED_AUTH_PER_MINUTE = 60;

export function setRateHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', Math.ceil(decision.resetAtMs / 1000));
}

function retryAfterSeconds(decision: RateDecision, nowMs: number): number {
  return Math.max(1, Math.ceil((decision.resetAtMs - nowMs) / 1000));
}

/**
 * Authentication, address allow-list, per-key rate limit and scope check, in that order, for every
 * route that declares `config.access`. Public routes may declare a per-address limit instead.
 */
export const authPlugin = fp(
  async (
    app: FastifyInstance,
    opts: { ctx: AppContext; hooks: AuthHooks; limiter: RateLimiter; log: Logger | null },
  ) => {
    const { ctx, hooks, limiter, log } = opts;
    app.decorateRequest('auth', null);
    app.decorateRequest('rate', null);

    function limiterUnavailable(request: FastifyRequest, error: unknown): never {
      log?.error({ err: error, req_id: request.id }, 'rate limiter unavailable');
      throw errors.unavailable('Rate limiting is unavailable; try again shortly');
    }

    /** Without its counters the service cannot keep its limits: it refuses rather than run unmetered. */
    function hit(request: FastifyRequest, bucket: string, limit: number, nowMs: number) {
      let decision: MaybePromise<RateDecision>;
      try {
        decision = limiter.hit(bucket, limit, nowMs);
      } catch (error) {
        return limiterUnavailable(request, error);
      }
      if (!(decision instanceof Promise)) return decision;
      return decision.catch((error: unknown) => limiterUnavailable(request, error));
    }

    function rejectFailedAuth(request: FastifyRequest, nowMs: number): MaybePromise<never> {
      const bucket = `authfail:${addressBucket(request.ip)}`;
      return chain(hit(request, bucket, FAILED_AUTH_PER_MINUTE, nowMs), (decision) => {
        if (!decision.allowed) {
          throw errors.rateLimited(
            retryAfterSeconds(decision, nowMs),
            'Too many failed authentications from this address',
          );
        }
        throw errors.unauthorized();
      });
    }

    function checkScope(scope: Scope, granted: readonly Scope[], effective: readonly Scope[]): void {
      if (effective.includes(scope)) return;
      if (!granted.includes(scope)) throw errors.forbidden(scope);
      throw hooks.scopeOutsidePlan(scope);
    }

    function limitPerAddress(
      request: FastifyRequest,
      reply: FastifyReply,
      route: string,
      perMinute: number,
    ): MaybePromise<void> {
      const nowMs = ctx.clock.now().getTime();
      const bucket = `addr:${route}:${addressBucket(request.ip)}`;
      return chain(hit(request, bucket, perMinute, nowMs), (decision) => {
        setRateHeaders(reply, decision);
        if (!decision.allowed) throw errors.rateLimited(retryAfterSeconds(decision, nowMs));
      });
    }

    /**
     * A budget per object and workspace (one webhook's tests), beside the key's own: a sandbox has
     * its own, so a test key cannot spend the budget of the label's live keys.
     */
    function limitPerObject(
      request: FastifyRequest,
      perObject: { limit: number; object: string },
    ): MaybePromise<void> {
      const nowMs = ctx.clock.now().getTime();
      const params = request.params;
      const id = typeof params === 'object' && params !== null && 'id' in params ? String(params.id) : '';
      const bucket = `${perObject.object}:${authOf(request).workspace.id}:${id}`;
      return chain(hit(request, bucket, perObject.limit, nowMs), (decision) => {
        if (decision.allowed) return;
        throw errors.rateLimited(
          retryAfterSeconds(decision, nowMs),
          `At most ${perObject.limit} of these requests a minute per ${perObject.object}`,
        );
      });
    }

    // The common case, a cached key and the in-process limiter, runs without a promise or a closure.
    function authenticate(
      request: FastifyRequest,
      reply: FastifyReply,
      access: RouteAccess,
    ): MaybePromise<void> {
      const nowMs = ctx.clock.now().getTime();
      const token = bearerToken(request);
      const found = token ? hooks.authenticate(token) : null;
      if (found instanceof Promise)
        return found.then((loaded) => admit(request, reply, access, loaded, nowMs));
      return admit(request, reply, access, found, nowMs);
    }

    function admit(
      request: FastifyRequest,
      reply: FastifyReply,
      access: RouteAccess,
      found: RequestAuth | null,
      nowMs: number,
    ): MaybePromise<void> {
      if (!found) return rejectFailedAuth(request, nowMs);
      if (found.key.allowIps && !addressAllowed(found.key.allowIps, request.ip)) throw errors.ipNotAllowed();
      // An unlimited rate (an Enterprise agreement) is not counted, and has no headers to show.
      const perMinute = found.terms.limits.rate;
      if (perMinute === null) return grant(request, access, found, null);
      const rate = hit(request, `key:${found.key.id}`, perMinute, nowMs);
      if (rate instanceof Promise) {
        return rate.then((decided) => spend(request, reply, access, found, decided, nowMs));
      }
      return spend(request, reply, access, found, rate, nowMs);
    }

    function spend(
      request: FastifyRequest,
      reply: FastifyReply,
      access: RouteAccess,
      found: RequestAuth,
      rate: RateDecision,
      nowMs: number,
    ): MaybePromise<void> {
      setRateHeaders(reply, rate);
      if (!rate.allowed) throw errors.rateLimited(retryAfterSeconds(rate, nowMs));
      return grant(request, access, found, rate);
    }

    function grant(
      request: FastifyRequest,
      access: RouteAccess,
      found: RequestAuth,
      rate: RateDecision | null,
    ): MaybePromise<void> {
      request.auth = found;
      request.rate = rate;
      if (access !== 'any_key') checkScope(access, found.key.grantedScopes, found.effectiveScopes);
      // A sandbox works on a copy of its label's catalog, made by its first request.
      if (!found.workspace.catalogCopied) return hooks.prepareSandbox(found.workspace);
    }

    // Attached to the routes that declare access or a per-address limit, so public routes skip it
    // and each hook knows its route's declaration without looking it up per request.
    app.addHook('onRoute', (route) => {
      const perMinute = route.config?.perAddressPerMinute;
      const access = route.config?.access;
      const hooks: onRequestHookHandler[] = [];
      if (perMinute !== undefined) {
        const { url } = route;
        hooks.push((request, reply, done) => settle(done, limitPerAddress, request, reply, url, perMinute));
      }
      if (access !== undefined) {
        hooks.push((request, reply, done) => settle(done, authenticate, request, reply, access));
      }
      const perObject = route.config?.perObjectPerMinute;
      if (perObject !== undefined) {
        // After authentication (whose label owns the object) and validation (its parsed id).
        const limit: preHandlerHookHandler = (request, _reply, done) =>
          settle(done, limitPerObject, request, perObject);
        route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), limit];
      }
      if (hooks.length === 0) return;
      route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), ...hooks];
    });
  },
  { name: 'auth' },
);
