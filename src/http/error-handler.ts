import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Logger } from 'pino';
import { ApiError, errors } from '../errors.ts';
import { setStandardHeaders } from './conventions.ts';

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

function fieldOf(issue: ValidationIssue | undefined, context: string | undefined): string {
  const missing =
    issue?.params && 'missingProperty' in issue.params ? issue.params.missingProperty : undefined;
  const additional =
    issue?.params && 'additionalProperty' in issue.params ? issue.params.additionalProperty : undefined;
  const path = (issue?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const extra = typeof missing === 'string' ? missing : typeof additional === 'string' ? additional : '';
  return [path, extra].filter(Boolean).join('.') || context || 'body';
}

function validationError(error: FastifyError): ApiError {
  const issue = error.validation?.[0];
  const field = fieldOf(issue, error.validationContext);
  const detail = issue?.message ?? 'is invalid';
  return errors.invalid(field, `${field} ${detail}`);
}

/** Maps whatever was thrown to the one error shape; anything unexpected is a 500 without internals. */
export function toApiError(error: unknown, request?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation) return validationError(fastifyError as FastifyError);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge('The request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(request?.headers['content-type'] ?? 'this');
    case 'FST_ERR_BAD_URL':
      return errors.invalid('path', 'The request path is not a valid URL path');
    // The router stops reading a path parameter past 100 characters; no id, code or file name
    // of ours is that long, so the path cannot name anything: invalid, like a malformed one.
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return errors.invalid('path', 'A path segment is longer than any id, code or name of ours');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalid('body', 'The body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalid('body', 'The body is empty but the content type is application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalid('body', 'Content-Length does not match the body');
  }
  if (fastifyError.statusCode === 413) return errors.payloadTooLarge();
  return errors.internal();
}

/**
 * The error shape, serialized here: a route's response schema for the same status (GET /status
 * declares its own 503 body) must not be applied to an error.
 */
function sendError(reply: FastifyReply, apiError: ApiError): FastifyReply {
  return reply
    .code(apiError.status)
    .headers(apiError.headers)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(apiError.body()));
}

/**
 * Errors Fastify raises before any hook runs (a path that is not valid URL encoding): same shape,
 * same standard headers.
 */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(error, request);
  setStandardHeaders(request, reply);
  void sendError(reply, apiError);
}

/**
 * One handler for every failure, and a not-found handler that tells a wrong method (405 with
 * `Allow`) from an unknown path (404). A mirror router answers "which methods does this path have?".
 */
export const errorHandlerPlugin = fp(
  async (app: FastifyInstance, opts: { log: Logger | null }) => {
    const mirror = FindMyWay({ ignoreTrailingSlash: false });
    const knownMethods = new Set<HTTPMethod>();
    const noop = () => undefined;

    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods as HTTPMethod[]) {
        if (method === 'HEAD') continue;
        knownMethods.add(method);
        if (!mirror.hasRoute(method, route.url)) mirror.on(method, route.url, noop);
      }
    });

    app.setErrorHandler((error, request, reply) => {
      const apiError = toApiError(error, request);
      if (apiError.status >= 500) opts.log?.error({ err: error, req_id: request.id }, 'unexpected fault');
      return sendError(reply, apiError);
    });

    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      const allowed = [...knownMethods].filter((method) => mirror.find(method, path) !== null);
      // A route that exists for this method but found nothing to serve (a static file) is a 404.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const wrongMethod = allowed.length > 0 && !allowed.some((candidate) => candidate === method);
      const apiError = wrongMethod
        ? errors.methodNotAllowed(request.method, allowed)
        : errors.notFound('Route');
      return sendError(reply, apiError);
    });
  },
  { name: 'error-handler' },
);
