import type { Workspace } from '../db/scope.ts';
import type { ApiError } from '../errors.ts';
import type { MaybePromise } from '../lib/maybe-promise.ts';
import type { Scope } from '../modules/plans/index.ts';
import type { RequestAuth } from './request-context.ts';

/**
 * What authentication needs from the domain, declared here and filled by the composition root
 * (app.ts) from the modules, so that http/ runs the checks without importing a domain service.
 */
export interface AuthHooks {
  /** The caller a bearer key names; null for an unknown or revoked key. */
  authenticate(token: string): MaybePromise<RequestAuth | null>;
  /** The refusal of a scope the key was granted but its label's plan does not include now. */
  scopeOutsidePlan(scope: Scope): ApiError;
  /** Readies a sandbox before its first request is served; that request, and any beside it, waits. */
  prepareSandbox(workspace: Workspace): Promise<void>;
}
