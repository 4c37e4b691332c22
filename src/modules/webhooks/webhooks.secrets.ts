import type { Config } from '../../config.ts';
import { randomBase62 } from '../../lib/random.ts';
import { deriveKey, seal, unseal } from '../../lib/secret-box.ts';
import { masterSecret } from '../../master-secret.ts';

export const WEBHOOK_SECRET_PREFIX = 'svcwh_';

const keys = new WeakMap<Config, Buffer>();

function encryptionKey(config: Config): Buffer {
  let key = keys.get(config);
  if (!key) {
    key = deriveKey(masterSecret(config), 'webhook secrets');
    keys.set(config, key);
  }
  return key;
}

/** A new signing secret: shown to the caller once, stored only encrypted. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBase62(40)}`;
}

export function encryptSecret(config: Config, secret: string): string {
  return seal(encryptionKey(config), secret);
}

/** Secrets by their ciphertext: a delivery needs one each time, and a rotation changes the ciphertext. */
const decryptedByConfig = new WeakMap<Config, Map<string, string>>();
const DECRYPTED_KEPT = 1000;

export function decryptSecret(config: Config, stored: string): string {
  let decrypted = decryptedByConfig.get(config);
  if (!decrypted) {
    decrypted = new Map();
    decryptedByConfig.set(config, decrypted);
  }
  const known = decrypted.get(stored);
  if (known !== undefined) return known;
  let secret: string;
  try {
    secret = unseal(encryptionKey(config), stored);
  } catch {
    throw new Error(
      'A webhook secret cannot be decrypted: LABELDESK_SECRET (or the data dir master.key) differs from the one that encrypted it',
    );
  }
  if (decrypted.size >= DECRYPTED_KEPT) decrypted.clear();
  decrypted.set(stored, secret);
  return secret;
}
