import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import { authPlugin } from './http/auth.ts';
import { conventionsPlugin } from './http/conventions.ts';
import { errorHandlerPlugin, sendFrameworkError } from './http/error-handler.ts';
import { etagPlugin } from './http/etag.ts';
import type { AuthHooks } from './http/hooks.ts';
import { idempotencyPlugin } from './http/idempotency.ts';
import { openapiPlugin } from './http/openapi.ts';
import type { RateLimiter } from './http/rate-limiter.ts';
import { ErrorBody } from './http/schemas.ts';
import { buildSerializer } from './http/serialization.ts';
import { textInputPlugin } from './http/text-input.ts';
import { buildValidator } from './http/validation.ts';
import { rangeMatcher } from './lib/ip-allow-list.ts';
import { analyticsRoutes } from './modules/analytics/index.ts';
import { artistsRoutes } from './modules/artists/index.ts';
import { consoleRoutes } from './modules/console/index.ts';
import { coverFilesRoutes, coversRoutes } from './modules/covers/index.ts';
import { ddexRoutes } from './modules/ddex/index.ts';
import { distributorRoutes } from './modules/distributor/index.ts';
import { eventsRoutes } from './modules/events/index.ts';
import { financeRoutes } from './modules/finance/index.ts';
import { identityRoutes } from './modules/identity/index.ts';
import { authenticateKey } from './modules/keys/index.ts';
import { lookupsRoutes } from './modules/lookups/index.ts';
import { plansRoutes, scopeOutsidePlan } from './modules/plans/index.ts';
import { platformsRoutes } from './modules/platforms/index.ts';
import { releasesRoutes } from './modules/releases/index.ts';
import { reportsRoutes } from './modules/reports/index.ts';
import { copyCatalogIntoSandbox } from './modules/sandbox/index.ts';
import { searchRoutes } from './modules/search/index.ts';
import { linkPagesRoutes, smartLinksRoutes } from './modules/smart-links/index.ts';
import { statusRoutes } from './modules/status/index.ts';
import { submissionRoutes } from './modules/submission/index.ts';
import { supportRoutes, takedownRoutes } from './modules/support/index.ts';
import { teamRoutes } from './modules/team/index.ts';
import { tracksRoutes } from './modules/tracks/index.ts';
import { validationRoutes } from './modules/validation/index.ts';
import { webhooksRoutes } from './modules/webhooks/index.ts';

/** JSON bodies above this are refused with 413 (uploads set their own limits). */
export const JSON_BODY_LIMIT = 100 * 1024;

export interface AppDeps {
  limiter: RateLimiter;
  /** Where request lines and faults go; none in tests. */
  log?: Logger | null;
  https?: { key: string | Buffer; cert: string | Buffer } | null;
  /**
   * `status`: only `GET /api/v1/status`, every other path a 404 (a `worker` process, which answers
   * its load balancer's health check and nothing else); `all` by default.
   */
  routes?: 'all' | 'status';
}

/** The modules' side of authentication: keys, plans and the sandbox. */
function authHooks(ctx: AppContext): AuthHooks {
  return {
    authenticate: (token) => authenticateKey(ctx, token),
    scopeOutsidePlan,
    prepareSandbox: (workspace) => copyCatalogIntoSandbox(ctx, workspace),
  };
}

/** Fastify with the cross-cutting http/ plugins and every module; it does not listen. */
export async function buildApp(ctx: AppContext, deps: AppDeps): Promise<FastifyInstance> {
  const isTrustedProxy = ctx.config.trustProxy ? rangeMatcher(ctx.config.trustProxy) : null;
  const options: FastifyServerOptions = {
    // Fastify's own logger costs a large share of a small request even with request logging off;
    // the one line per request is written by the conventions plugin with `deps.log` instead.
    logger: false,
    bodyLimit: JSON_BODY_LIMIT,
    // Only the named proxies speak for a client: the client address is the last one in
    // X-Forwarded-For that no trusted proxy holds, and a peer outside the list is a direct client
    // whose X-Forwarded-* headers are ignored (else it could open allow-lists and per-address limits).
    // A predicate rather than the ranges, so that each peer address is parsed once, not per request.
    trustProxy: isTrustedProxy ?? false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // A request that reached a closing server on an open connection is answered (with
    // `Connection: close`, see conventions.ts): only new connections are refused while it drains.
    return503OnClosing: false,
    frameworkErrors: sendFrameworkError,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
  };
  const tls = deps.https;
  if (tls) {
    // Fastify types an HTTPS instance apart from an HTTP one; the factory keeps one instance type.
    options.serverFactory = (handler) => createHttpsServer(tls, handler) as unknown as Server;
  }
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ErrorBody);
  const log = deps.log ?? null;
  await app.register(errorHandlerPlugin, { log });
  await app.register(conventionsPlugin, { isTrustedProxy, log });
  await app.register(authPlugin, { ctx, hooks: authHooks(ctx), limiter: deps.limiter, log });
  await app.register(idempotencyPlugin, { ctx });
  await app.register(etagPlugin);
  await app.register(textInputPlugin);
  if (deps.routes === 'status') {
    await app.register(statusRoutes(ctx), { prefix: '/api/v1' });
    return app;
  }
  await app.register(openapiPlugin, { baseUrl: ctx.config.baseUrl });

  await app.register(
    async (api) => {
      await api.register(statusRoutes(ctx));
      await api.register(plansRoutes);
      await api.register(identityRoutes(ctx));
      await api.register(platformsRoutes);
      await api.register(lookupsRoutes);
      await api.register(teamRoutes(ctx));
      await api.register(financeRoutes(ctx));
      await api.register(artistsRoutes(ctx));
      await api.register(releasesRoutes(ctx));
      await api.register(validationRoutes(ctx));
      await api.register(submissionRoutes(ctx));
      await api.register(ddexRoutes(ctx));
      await api.register(coversRoutes(ctx));
      await api.register(tracksRoutes(ctx));
      await api.register(searchRoutes(ctx));
      await api.register(reportsRoutes(ctx));
      await api.register(eventsRoutes(ctx));
      await api.register(webhooksRoutes(ctx));
      await api.register(takedownRoutes(ctx));
      await api.register(supportRoutes(ctx));
      await api.register(smartLinksRoutes(ctx));
      await api.register(analyticsRoutes(ctx));
    },
    { prefix: '/api/v1' },
  );
  await app.register(coverFilesRoutes(ctx));
  await app.register(linkPagesRoutes(ctx));
  await app.register(distributorRoutes(ctx));
  await app.register(consoleRoutes(ctx));
  return app;
}
