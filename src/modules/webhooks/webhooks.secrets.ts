import type { Config } from '../../config.ts';
import { randomBase62 } from '../../lib/random.ts';
import { remembered } from '../../lib/remembered.ts';
import { deriveKey, seal, unseal } from '../../lib/secret-box.ts';
import { masterSecret } from '../../master-secret.ts';

export const WEBHOOK_SECRET_PREFIX = 'svcwh_';

/** Per configuration: the key derived from its master secret, and the secrets it has decrypted. */
interface SecretBox {
  key: Buffer;
  /** By ciphertext: a delivery needs its secret each time, and a rotation changes the ciphertext. */
  decrypt: (stored: string) => string;
}

const boxes = new WeakMap<Config, SecretBox>();

function secretBox(config: Config): SecretBox {
  let box = boxes.get(config);
  if (!box) {
    const key = deriveKey(masterSecret(config), 'webhook secrets');
    box = { key, decrypt: remembered(1000, (stored) => openSecret(key, stored)) };
    boxes.set(config, box);
  }
  return box;
}

function openSecret(key: Buffer, stored: string): string {
  try {
    return unseal(key, stored);
  } catch {
    throw new Error(
      'A webhook secret cannot be decrypted: LABELDESK_SECRET (or the data dir master.key) differs from the one that encrypted it',
    );
  }
}

/** A new signing secret: shown to the caller once, stored only encrypted. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBase62(40)}`;
}

export function encryptSecret(config: Config, secret: string): string {
  return seal(secretBox(config).key, secret);
}

export function decryptSecret(config: Config, stored: string): string {
  return secretBox(config).decrypt(stored);
}
