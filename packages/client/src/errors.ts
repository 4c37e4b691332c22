import type { components } from './schema.ts';

/** One problem of a release that is not ready (400 `invalid` on submit; see "Validating a release"). */
export interface ReleaseProblem {
  code: string;
  severity?: 'error' | 'warning';
  field: string;
  message: string;
  track_id?: number | null;
}

/**
 * The body of every error answer: `{error, code}` with the extra fields the API guide's "Errors" table
 * lists. The document's `Error` schema names the common ones; the rest appear where the guide says.
 */
export type ErrorBody = components['schemas']['Error'] & {
  /** 400 `invalid` on submit (and 409 on a DDEX export of a draft): every problem, not only the first. */
  problems?: ReleaseProblem[];
  /** 409 `conflict`: the object that holds what was asked for. */
  artist_id?: number;
  release_id?: number;
  request_id?: number;
  [extra: string]: unknown;
};

/** A 4xx or 5xx answer of the API, thrown by every call of the client (a 304 is not an error). */
export class LabeldeskApiError extends Error {
  override readonly name = 'LabeldeskApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The stable code (`invalid`, `forbidden`, `rate_limited`, ...); `unknown` when the body had none. */
  readonly code: string;
  /** 400 `invalid`: the field at fault, dotted for nested fields (`targets.0.url`). */
  readonly field: string | undefined;
  /** 403 `forbidden` (and `plan_required` for a scope): the scope the route needs. */
  readonly requiredScope: string | undefined;
  /** 403 `plan_limit` and `plan_required`: the plan that would allow it (null when none does). */
  readonly requiredPlan: string | null | undefined;
  /** 403 `plan_limit`: the label's plan, the used-up resource, its limit and how much is used. */
  readonly plan: string | undefined;
  readonly resource: string | undefined;
  readonly limit: number | undefined;
  readonly used: number | undefined;
  /** 400 `invalid` on submit: every problem of the release. */
  readonly problems: ReleaseProblem[] | undefined;
  /** `Retry-After` in seconds (429, 503, 409 `idempotency_in_progress`). */
  readonly retryAfter: number | undefined;
  /** `X-Request-Id`: quote it when reporting a problem, the server's log line carries it. */
  readonly requestId: string | undefined;
  /** The whole parsed body, with any field not named above. */
  readonly body: ErrorBody;
  /** The answer itself, for its other headers (its body has been read). */
  readonly response: Response;

  constructor(response: Response, body: ErrorBody) {
    super(body.error);
    this.status = response.status;
    this.code = body.code;
    this.field = body.field;
    this.requiredScope = body.required_scope;
    this.requiredPlan = body.required_plan;
    this.plan = body.plan;
    this.resource = body.resource;
    this.limit = body.limit;
    this.used = body.used;
    this.problems = body.problems;
    this.retryAfter = retryAfterSeconds(response);
    this.requestId = response.headers.get('x-request-id') ?? undefined;
    this.body = body;
    this.response = response;
  }

  /** The error an answer that is not 2xx stands for; its body is read (JSON, or text kept as the message). */
  static async from(response: Response): Promise<LabeldeskApiError> {
    const text = await response.text();
    return new LabeldeskApiError(response, errorBody(text, response.status));
  }
}

function errorBody(text: string, status: number): ErrorBody {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && typeof (parsed as ErrorBody).error === 'string') {
      const body = parsed as ErrorBody;
      return typeof body.code === 'string' ? body : { ...body, code: 'unknown' };
    }
  } catch {
    // Not JSON (a proxy's error page, say): the text is the message.
  }
  return { error: text || `HTTP ${status}`, code: 'unknown' };
}

/** `Retry-After` in whole seconds, or undefined when absent; an HTTP date is turned into seconds from now. */
export function retryAfterSeconds(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
