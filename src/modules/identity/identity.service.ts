import type { AppContext } from '../../context.ts';
import { API_VERSION } from '../../http/conventions.ts';
import { type Representation, representationOf, type Serializer, serializedBody } from '../../http/etag.ts';
import { DOCS_PATH, OPENAPI_PATH } from '../../http/openapi.ts';
import type { RateDecision } from '../../http/rate-limiter.ts';
import type { RequestAuth } from '../../http/request-context.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { USAGE_NAMES, usageOf } from '../plans/index.ts';

/**
 * Keyed by the caller the key cache loaded: a change to the key, its label or the label's usage
 * bumps a version the kept caller depends on, and the next request loads a new one, so a kept
 * document lives exactly as long as the rows and counts it shows.
 */
const callerRepresentations = new WeakMap<RequestAuth, Representation>();

/** GET /me, serialized and tagged once for as long as nothing it shows has changed. */
export function callerRepresentation(
  ctx: AppContext,
  auth: RequestAuth,
  serializer: Serializer,
): MaybePromise<Representation> {
  const kept = callerRepresentations.get(auth);
  if (kept) return kept;
  return describeCaller(ctx, auth).then((document) => {
    const representation = representationOf(serializedBody(serializer, document));
    callerRepresentations.set(auth, representation);
    return representation;
  });
}

export async function describeCaller(ctx: AppContext, auth: RequestAuth) {
  const { label, key, terms, workspace } = auth;
  const usage = await usageOf(ctx.db, label.id);
  const sandbox = workspace.sandbox ? { sandbox: true as const } : {};
  return {
    label: { id: label.id, name: label.name, slug: label.slug },
    key: {
      prefix: key.prefix,
      scopes: [...auth.effectiveScopes],
      created_at: key.created_at,
      ...sandbox,
    },
    plan: {
      key: terms.plan.key,
      name: terms.plan.name,
      commission_rate: terms.commission_rate,
      limits: terms.limits,
      usage,
      features: terms.plan.features,
    },
    rate_limit: { per_minute: terms.limits.rate },
    api_version: API_VERSION,
    docs: `${ctx.config.baseUrl}${DOCS_PATH}`,
    openapi: `${ctx.config.baseUrl}${OPENAPI_PATH}`,
    ...sandbox,
  };
}

export async function describeUsage(ctx: AppContext, auth: RequestAuth, rate: RateDecision | null) {
  const { label, terms } = auth;
  const usage = await usageOf(ctx.db, label.id);
  return {
    plan: terms.plan.key,
    usage: Object.fromEntries(
      USAGE_NAMES.map((name) => {
        const limit = terms.limits[name];
        const used = usage[name];
        return [name, { used, limit, remaining: limit === null ? null : Math.max(0, limit - used) }];
      }),
    ),
    rate_limit: {
      per_minute: terms.limits.rate,
      remaining: rate ? rate.remaining : null,
      reset: rate ? Math.ceil(rate.resetAtMs / 1000) : null,
    },
  };
}
