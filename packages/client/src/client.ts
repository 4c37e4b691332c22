import createClient, {
  type ClientPathsWithMethod,
  type Client as FetchClient,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import { LabeldeskApiError, retryAfterSeconds } from './errors.ts';
import type { paths } from './schema.ts';

export interface RetryOptions {
  /** How many times a request is sent at most, the first time included: 4 is the first and 3 retries. */
  attempts?: number;
  /**
   * The longest wait before a retry, in seconds. A `Retry-After` longer than this is not waited for:
   * the 429 or 503 is thrown at once.
   */
  maxDelaySeconds?: number;
}

export interface LabeldeskClientOptions {
  /**
   * The server's origin, such as `https://localhost:8443` (no `/api/v1`: the paths carry it, as in the
   * OpenAPI document: `client.GET('/api/v1/artists')`).
   */
  baseUrl: string;
  /** An API key, `svc_...` (or `svc_test_...` for the sandbox), sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** The fetch to send with (default `globalThis.fetch`): one that trusts a private CA, a test double. */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 4, maxDelaySeconds: 30 };

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

// The same as openapi-fetch's own (not exported) helper: the init argument is required when the
// operation has a required parameter or body.
type RequiredKeysOf<T> = { [K in keyof T]: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
type InitParam<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];

/** Any answer that is not 2xx (or 304) is thrown as a LabeldeskApiError, so a result always has `data`. */
export type Answer<Result> = Omit<Extract<Result, { data: unknown }>, 'error'>;

type ClientMethod<M extends Method> = <
  Path extends ClientPathsWithMethod<FetchClient<paths>, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<
  paths[Path][M] extends Record<string | number, unknown>
    ? Answer<FetchResponse<paths[Path][M], Init, `${string}/${string}`>>
    : never
>;

/**
 * openapi-fetch's client over Labeldesk's paths, whose calls resolve with `{data, response}` or throw.
 * `data` is undefined only for a 304 (a conditional GET with `If-None-Match`: check `response.status`).
 */
export interface LabeldeskClient {
  GET: ClientMethod<'get'>;
  POST: ClientMethod<'post'>;
  PUT: ClientMethod<'put'>;
  PATCH: ClientMethod<'patch'>;
  DELETE: ClientMethod<'delete'>;
  /** openapi-fetch middleware (onRequest, onResponse, onError). */
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
}

/** The fetch each client sends with (key, idempotency and retries included), for pages named by a Link. */
const sendersOf = new WeakMap<LabeldeskClient, (request: Request) => Promise<Response>>();

/**
 * A client for a Labeldesk server: every call carries the key, every POST an `Idempotency-Key` (a new
 * UUID unless the call sets one; the same key on each retry), 429 and 503 are retried after their
 * `Retry-After`, and any other answer that is not 2xx or 304 is thrown as a LabeldeskApiError.
 */
export function createLabeldeskClient(options: LabeldeskClientOptions): LabeldeskClient {
  const send = labeldeskFetch(options.fetch ?? ((request) => globalThis.fetch(request)), {
    ...DEFAULT_RETRY,
    ...options.retry,
  });
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: send,
  }) as unknown as LabeldeskClient;
  sendersOf.set(client, (request) => {
    request.headers.set('authorization', `Bearer ${options.apiKey}`);
    return send(request);
  });
  return client;
}

/** Sends `url` (an absolute address of the client's server, as a Link header names it) as a GET. */
export function getUrl(client: LabeldeskClient, url: string, init: RequestInit = {}): Promise<Response> {
  const send = sendersOf.get(client);
  if (!send) throw new TypeError('not a client made by createLabeldeskClient');
  return send(new Request(url, { ...init, method: 'GET' }));
}

const RETRIED = new Set([429, 503]);

/** The fetch openapi-fetch calls: idempotency key, bounded retries of 429 and 503, errors thrown. */
function labeldeskFetch(
  fetch: (request: Request) => Promise<Response>,
  retry: Required<RetryOptions>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      // Set before the first attempt, so that every retry is the same request to the server.
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(attempt < retry.attempts ? request.clone() : request);
      if (response.ok || response.status === 304) return response;
      const wait =
        attempt < retry.attempts && RETRIED.has(response.status) ? delayOf(response, attempt) : null;
      if (wait === null || wait > retry.maxDelaySeconds) throw await LabeldeskApiError.from(response);
      await response.body?.cancel();
      await sleep(wait * 1000, request.signal);
    }
  };
}

/** Seconds to wait before the next attempt: `Retry-After`, or without it 0.5 s, 1 s, 2 s, ... */
function delayOf(response: Response, attempt: number): number {
  return retryAfterSeconds(response) ?? 0.5 * 2 ** (attempt - 1);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
