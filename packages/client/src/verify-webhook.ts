import type { EventName } from './feed.ts';

/** The body of a delivery (`X-Service-Event` names the same event). */
export interface WebhookDelivery {
  /** The delivery id (a UUID, also in `X-Service-Delivery-Id`), shared by its attempts: drop repeats by it. */
  id: string;
  event: EventName;
  created_at: string;
  /** What the event is about; `sandbox: true` on events of a sandbox. */
  data: Record<string, unknown>;
  /** On a redelivery (`POST /webhooks/{id}/redeliver`): true, with the feed's `event_id`. */
  redelivery?: true;
  event_id?: number;
}

export type WebhookVerificationFailure =
  /** The header is missing or not `t=<digits>,v1=<64 lowercase hex characters>`. */
  | 'malformed_header'
  /** `t` is further from now than the tolerance: a replay, or a clock far off. */
  | 'timestamp_out_of_tolerance'
  /** The HMAC does not match: another secret (a rotated one), or a body changed on the way. */
  | 'signature_mismatch'
  /** Signed correctly, but the body is not a JSON object. */
  | 'malformed_body';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** How far `t` may be from now, either way, in seconds (default 300, the API's tolerance). */
  toleranceSeconds?: number;
  /** The time to check against: a Date or milliseconds since the epoch (default: the clock). */
  now?: Date | number;
}

const SIGNATURE = /^t=(\d+),v1=([0-9a-f]{64})$/;
const encoder = new TextEncoder();

/**
 * Checks a delivery's `X-Service-Signature` on the raw body (the bytes as they arrived, before any
 * parsing) and returns the parsed body. Throws a WebhookVerificationError whose `reason` says which
 * check failed: the header's shape, the timestamp's age, or the HMAC-SHA256 (compared in constant time
 * by Web Crypto, so it runs in browsers, Node.js 20+, Deno, Bun and workers alike).
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookDelivery> {
  const { toleranceSeconds = 300, now = Date.now() } = options;
  const match = SIGNATURE.exec(signatureHeader ?? '');
  if (!match) {
    throw new WebhookVerificationError(
      'malformed_header',
      'X-Service-Signature is missing or not of the form t=<unix seconds>,v1=<64 lowercase hex characters>',
    );
  }
  const [, t = '', v1 = ''] = match;
  const nowSeconds = (now instanceof Date ? now.getTime() : now) / 1000;
  if (Math.abs(nowSeconds - Number(t)) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The signature's timestamp ${t} is more than ${toleranceSeconds} seconds from now (${Math.floor(nowSeconds)})`,
    );
  }
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  // subtle.verify compares the MAC in constant time.
  if (!(await crypto.subtle.verify('HMAC', key, hexBytes(v1), signed))) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      'The signature does not match this body and secret (a rotated secret, or a changed body)',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    parsed = null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WebhookVerificationError('malformed_body', 'The signed body is not a JSON object');
  }
  return parsed as WebhookDelivery;
}

/** 64 hex characters (checked by the pattern) as 32 bytes. */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
