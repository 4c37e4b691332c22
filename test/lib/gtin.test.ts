import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ean13, isValidUpc } from '../../src/lib/gtin.ts';

test('an assigned EAN-13 is the company prefix, the item reference and the check digit', () => {
  // 400638133393x: the GS1 worked example, check digit 1.
  assert.equal(ean13('400638', 133393), '4006381333931');
  assert.equal(ean13('0860000', 1), '0860000000017');
  for (const n of [0, 7, 42, 99_999]) assert.ok(isValidUpc(ean13('0860000', n)));
});

test('an item reference that does not fit the prefix is refused', () => {
  assert.throws(() => ean13('0860000', 100_000), RangeError);
  assert.throws(() => ean13('0860000', -1), RangeError);
});
