import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { errors } from '../../errors.ts';
import { forgetSignaturesBefore } from './distributor.store.ts';

/** The header a distributor signs its reports with: the scheme our own webhook deliveries use. */
export const SIGNATURE_HEADER = 'x-distributor-signature';

/** How far a signature's time may be from ours, either way (the spec's signature age tolerance). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * How long an applied signature is remembered. One stamped up to the tolerance ahead of our clock
 * stays acceptable until the tolerance after that stamp, so twice the tolerance covers every replay;
 * the extra minute covers servers of one installation whose clocks differ a little.
 */
const SIGNATURE_MEMORY_MS = (2 * SIGNATURE_TOLERANCE_SECONDS + 60) * 1000;

const HEADER_PATTERN = /^t=(\d{1,15}),v1=([0-9a-fA-F]{64})$/;

export interface DistributorSignature {
  /** The `t` digits exactly as sent: they are part of the signed text. */
  timestamp: string;
  /** Lowercase hex of the HMAC: the signature's identity when replays are recognised. */
  v1: string;
}

/** `t=<unix seconds>,v1=<64 hex>`; anything else (absent, repeated, padded) is refused. */
export function parseSignatureHeader(header: string | string[] | undefined): DistributorSignature {
  if (header === undefined) {
    throw errors.unauthorized(
      'Sign the request: X-Distributor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>',
    );
  }
  const match = typeof header === 'string' ? HEADER_PATTERN.exec(header) : null;
  const timestamp = match?.[1];
  const v1 = match?.[2];
  if (!timestamp || !v1) {
    throw errors.unauthorized('X-Distributor-Signature must be t=<unix seconds>,v1=<64 hex characters>');
  }
  return { timestamp, v1: v1.toLowerCase() };
}

/** A stamp more than the tolerance away from our clock is refused: an old one may be a captured request. */
export function assertFresh(signature: DistributorSignature, now: Date): void {
  const ageSeconds = now.getTime() / 1000 - Number(signature.timestamp);
  if (ageSeconds > SIGNATURE_TOLERANCE_SECONDS) {
    throw errors.unauthorized(
      `The signature is stale: t is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds old; sign the request again with the current time`,
    );
  }
  if (ageSeconds < -SIGNATURE_TOLERANCE_SECONDS) {
    throw errors.unauthorized(
      `The signature is from the future: t is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds ahead of the server's clock (t is in unix seconds)`,
    );
  }
}

/** HMAC-SHA256 over `t`, a dot and the body's exact bytes, compared in constant time. */
export function assertSignedBy(secret: string, signature: DistributorSignature, rawBody: Buffer): void {
  const expected = createHmac('sha256', secret).update(`${signature.timestamp}.`).update(rawBody).digest();
  const given = Buffer.from(signature.v1, 'hex');
  if (!timingSafeEqual(expected, given)) {
    throw errors.unauthorized(
      'The signature does not match the body: sign t, a dot and the exact body bytes',
    );
  }
}

/**
 * Drops remembered signatures that could no longer be replayed anyway (their time is outside the
 * tolerance), so the table holds minutes of traffic. Run it as a recurring job.
 */
export async function pruneReportSignatures(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  const before = new Date(ctx.clock.now().getTime() - SIGNATURE_MEMORY_MS).toISOString();
  return forgetSignaturesBefore(ctx.db, before);
}
