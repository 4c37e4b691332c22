import type { FastifyRequest } from 'fastify';

/** Sandbox keys are told apart by their prefix alone, so it is known before any lookup. */
const SANDBOX_KEY_PREFIX = 'svc_test_';

/** The key a request presents as `Authorization: Bearer <key>`, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Whether the request presents a sandbox-shaped key, known or not. */
export function carriesSandboxKey(request: FastifyRequest): boolean {
  return bearerToken(request)?.startsWith(SANDBOX_KEY_PREFIX) ?? false;
}
