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

test('a key is 32 bytes, the same for the same secret and purpose, different for another of either', () => {
  const master = 'a master secret of at least thirty-two characters';
  assert.equal(key.length, 32);
  assert.deepEqual(deriveKey(master, 'tests'), key);
  assert.notDeepEqual(deriveKey(master, 'webhooks'), key);
  assert.notDeepEqual(deriveKey('another master secret of thirty-two characters', 'tests'), key);
});

test('any text survives the round trip: empty, non-ASCII, long', () => {
  for (const plaintext of ['', 'svcwh_secret', 'Björk — 東京 🎧', 'x'.repeat(100_000), 'a.b.c.d']) {
    assert.equal(unseal(key, seal(key, plaintext)), plaintext);
  }
});

test('a sealed secret is v1 and three base64url parts, with a fresh 12-byte IV each time', () => {
  const first = seal(key, 'svcwh_secret');
  const second = seal(key, 'svcwh_secret');
  assert.notEqual(first, second);
  const [version, iv, ...rest] = first.split('.');
  assert.equal(version, 'v1');
  assert.equal(Buffer.from(iv ?? '', 'base64url').length, 12);
  for (const part of [iv, ...rest]) assert.match(part ?? '', /^[A-Za-z0-9_-]+$/);
  assert.ok(!first.includes('svcwh_secret'));
});

test('a secret sealed under another key is refused', () => {
  const sealed = seal(
    deriveKey('a master secret of at least thirty-two characters', 'webhooks'),
    'svcwh_secret',
  );
  assert.throws(() => unseal(key, sealed), /unable to authenticate data/);
});

test('an altered IV or tag is refused', () => {
  const [version, iv, tag, ciphertext] = seal(key, 'svcwh_secret').split('.');
  const flip = (part: string | undefined) => {
    const bytes = Buffer.from(part ?? '', 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    return bytes.toString('base64url');
  };
  assert.throws(
    () => unseal(key, [version, flip(iv), tag, ciphertext].join('.')),
    /unable to authenticate data/,
  );
  assert.throws(
    () => unseal(key, [version, iv, flip(tag), ciphertext].join('.')),
    /unable to authenticate data/,
  );
});

test('text that is not a v1 sealed secret is refused as such', () => {
  const [, iv, tag, ciphertext] = seal(key, 'svcwh_secret').split('.');
  for (const text of [
    '',
    'svcwh_secret',
    `v1.${iv}.${tag}`,
    `v2.${iv}.${tag}.${ciphertext}`,
    `.${iv}.${tag}.${ciphertext}`,
  ]) {
    assert.throws(() => unseal(key, text), /not a sealed secret/, text);
  }
});
