import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';

/**
 * Upload routes document their binary bodies in the schema but read and judge the stream
 * themselves (they set `attachValidation`), so a body that "fails" its schema is no error there;
 * a failure on the path still is. Fastify checks the path first and stops at the first failure.
 */
export function rethrowUnlessBodyFailure(request: FastifyRequest): void {
  const failure = request.validationError;
  if (failure && failure.validationContext !== 'body') throw failure;
}

/** A failure of our own disk is ours (500); a failure while reading the client's body is the client's. */
export function isSystemError(error: unknown): boolean {
  return error instanceof Error && 'syscall' in error;
}

/** The documented schema of a binary body or response (the handler reads or writes the bytes). */
export const BinaryBody = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
