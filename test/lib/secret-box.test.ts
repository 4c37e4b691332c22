import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveKey, seal, unseal } from '../../src/lib/secret-box.ts';

const key = deriveKey('a master secret of at least thirty-two characters', 'tests');

/** The sealed value with its tag cut to `bytes` (GCM itself would accept 4 to 16). */
function withTagOf(sealed: string, bytes: number): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  const short = Buffer.from(tag ?? '', 'base64url')
    .subarray(0, bytes)
    .toString('base64url');
  return [version, iv, short, ciphertext].join('.');
}

test('a sealed secret opens with its key and carries a 16-byte tag', () => {
  const sealed = seal(key, 'svcwh_secret');
  assert.equal(unseal(key, sealed), 'svcwh_secret');
  assert.equal(Buffer.from(sealed.split('.')[2] ?? '', 'base64url').length, 16);
});

test('a sealed secret whose tag is shorter than 16 bytes is refused', () => {
  const sealed = seal(key, 'svcwh_secret');
  for (const bytes of [4, 8, 12, 15]) {
    assert.throws(() => unseal(key, withTagOf(sealed, bytes)), /the tag is not 16 bytes/, `${bytes} bytes`);
  }
});

test('an altered ciphertext is refused', () => {
  const [version, iv, tag, ciphertext] = seal(key, 'svcwh_secret').split('.');
  const flipped = Buffer.from(ciphertext ?? '', 'base64url');
  flipped[0] = (flipped[0] ?? 0) ^ 1;
  assert.throws(() => unseal(key, [version, iv, tag, flipped.toString('base64url')].join('.')));
});
