/**
 * The one error type of the API. Every failure a client can see is an ApiError, and the error
 * handler (http/error-handler.ts) turns it into `{error, code, ...extra}` with its status.
 */
export type ErrorCode =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'ip_not_allowed'
  | 'https_required'
  | 'plan_limit'
  | 'plan_required'
  | 'live_key_required'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_mismatch'
  | 'idempotency_in_progress'
  | 'contract_required'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

export type ErrorExtra = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: ErrorExtra = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): { error: string; code: ErrorCode } & ErrorExtra {
    return { error: this.message, code: this.code, ...this.extra };
  }
}

export const errors = {
  invalid: (field: string, message: string, extra: ErrorExtra = {}) =>
    new ApiError(400, 'invalid', message, { field, ...extra }),
  unauthorized: (message = 'A valid API key is required: send Authorization: Bearer <API_KEY>') =>
    new ApiError(401, 'unauthorized', message),
  forbidden: (requiredScope: string) =>
    new ApiError(403, 'forbidden', `This key lacks the scope ${requiredScope}`, {
      required_scope: requiredScope,
    }),
  ipNotAllowed: () =>
    new ApiError(403, 'ip_not_allowed', "The request address is outside this key's allow-list"),
  httpsRequired: () => new ApiError(403, 'https_required', 'The API is served over HTTPS only'),
  planRequired: (requiredPlan: string, message: string, extra: ErrorExtra = {}) =>
    new ApiError(403, 'plan_required', message, { required_plan: requiredPlan, ...extra }),
  planLimit: (body: {
    resource: string;
    plan: string;
    limit: number;
    used: number;
    required_plan: string | null;
  }) => new ApiError(403, 'plan_limit', `The ${body.resource} limit of the plan is used up`, body),
  /** A sandbox key asked to change something its sandbox shares with live traffic. */
  liveKeyRequired: (action: string) =>
    new ApiError(
      403,
      'live_key_required',
      `A live key is needed to ${action}; a sandbox (svc_test_) key cannot`,
    ),
  notFound: (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`),
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    new ApiError(
      405,
      'method_not_allowed',
      `${method} is not allowed here`,
      {},
      { allow: allowed.join(', ') },
    ),
  conflict: (message: string, extra: ErrorExtra = {}) => new ApiError(409, 'conflict', message, extra),
  payloadTooLarge: (message = 'The request body is too large') =>
    new ApiError(413, 'payload_too_large', message),
  unsupportedMediaType: (contentType: string) =>
    new ApiError(415, 'unsupported_media_type', `Content type ${contentType} is not accepted here`),
  idempotencyMismatch: () =>
    new ApiError(
      422,
      'idempotency_mismatch',
      'This Idempotency-Key was used with a different request; use a new key for a new request',
    ),
  idempotencyInProgress: () =>
    new ApiError(
      409,
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed',
      {},
      { 'retry-after': '1' },
    ),
  contractRequired: () =>
    new ApiError(
      428,
      'contract_required',
      'The label has no signed distribution contract: sign it before submitting releases',
    ),
  rateLimited: (retryAfterSeconds: number, message = 'Too many requests') =>
    new ApiError(429, 'rate_limited', message, {}, { 'retry-after': String(retryAfterSeconds) }),
  internal: () => new ApiError(500, 'internal', 'Internal error'),
  unavailable: (message: string) => new ApiError(503, 'unavailable', message, {}, { 'retry-after': '1' }),
};
