import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeIsrc } from '../../src/lib/isrc.ts';

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
