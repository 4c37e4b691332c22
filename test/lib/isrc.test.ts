import assert from 'node:assert/strict';
import { test } from 'node:test';
import { composeIsrc, normalizeIsrc } from '../../src/lib/isrc.ts';

test('an ISRC is stored uppercase without hyphens', () => {
  assert.equal(normalizeIsrc('USRC17607839'), 'USRC17607839');
  assert.equal(normalizeIsrc('us-rc1-76-07839'), 'USRC17607839');
  assert.equal(normalizeIsrc(' RU-A12-25-00001 '), 'RUA122500001');
});

test('anything else is not an ISRC', () => {
  for (const input of [
    '',
    'USRC1760783',
    'USRC176078391',
    '1SRC17607839',
    'USRC1A607839',
    'US_RC17607839',
    'USRC17607839X',
  ]) {
    assert.equal(normalizeIsrc(input), null, input);
  }
});

test('an assigned ISRC is country, registrant, two-digit year and five-digit designation', () => {
  assert.equal(composeIsrc('US', 'LD0', 2026, 1), 'USLD02600001');
  assert.equal(composeIsrc('GB', 'A1B', 2031, 99_999), 'GBA1B3199999');
  assert.throws(() => composeIsrc('US', 'LD0', 2026, 100_000), RangeError);
  assert.throws(() => composeIsrc('US', 'LD0', 2026, 0), RangeError);
});
