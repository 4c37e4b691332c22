import type { FastifyRequest } from 'fastify';

/**
 * Upload routes document their binary bodies in the schema but read and judge the stream
 * themselves (they set `attachValidation`), so a body that "fails" its schema is no error there;
 * a failure on the path still is. Fastify checks the path first and stops at the first failure.
 */
export function rethrowUnlessBodyFailure(request: FastifyRequest): void {
  const failure = request.validationError;
  if (failure && failure.validationContext !== 'body') throw failure;
}
