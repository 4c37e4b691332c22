import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  centsOfMicros,
  commissionCents,
  divideRounded,
  dollars,
  dollarsOfMicros,
  formatDollars,
  parseDecimal,
  rateInBasisPoints,
} from '../../src/lib/money.ts';

test('a plain decimal is counted in units of 10^-scale', () => {
  assert.equal(parseDecimal('12.5', 2), 1250);
  assert.equal(parseDecimal('12.50', 2), 1250);
  assert.equal(parseDecimal('7', 2), 700);
  assert.equal(parseDecimal('7', 0), 7);
  assert.equal(parseDecimal('0.000001', 6), 1);
  assert.equal(parseDecimal('-0.003421', 6), -3421);
  assert.equal(parseDecimal('007.25', 2), 725);
  assert.equal(parseDecimal(' 3.10 ', 2), 310);
});

test('a negative zero is counted as zero, not -0', () => {
  for (const text of ['-0', '-0.00', '-0.000000']) {
    assert.ok(Object.is(parseDecimal(text, 6), 0), text);
  }
});

test('a decimal with more places than the scale is refused rather than rounded', () => {
  assert.equal(parseDecimal('12.345', 2), null);
  assert.equal(parseDecimal('5.0', 0), null);
  assert.equal(parseDecimal('0.0000001', 6), null);
});

test('anything but a plain decimal is refused', () => {
  for (const text of [
    '',
    ' ',
    '-',
    '.5',
    '5.',
    '+5',
    '1e3',
    '1,5',
    '1 000',
    '0x10',
    'Infinity',
    'NaN',
    '12.5.1',
    'abc',
  ]) {
    assert.equal(parseDecimal(text, 2), null, JSON.stringify(text));
  }
});

test('a decimal too large to count exactly is refused', () => {
  assert.equal(parseDecimal('9007199254740991', 0), Number.MAX_SAFE_INTEGER);
  assert.equal(parseDecimal('9007199254740992', 0), null);
  assert.equal(parseDecimal('-9007199254740992', 0), null);
  assert.equal(parseDecimal('9007199254.740991', 6), Number.MAX_SAFE_INTEGER);
  assert.equal(parseDecimal('9007199254.740992', 6), null);
});

test('a quotient is rounded to the nearest integer, halves away from zero', () => {
  assert.equal(divideRounded(10, 10), 1);
  assert.equal(divideRounded(14, 10), 1);
  assert.equal(divideRounded(15, 10), 2);
  assert.equal(divideRounded(5, 10), 1);
  assert.equal(divideRounded(25, 10), 3);
  assert.equal(divideRounded(-5, 10), -1);
  assert.equal(divideRounded(-15, 10), -2);
  assert.equal(divideRounded(-25, 10), -3);
  assert.equal(divideRounded(-16, 10), -2);
  assert.equal(divideRounded(-14, 10), -1);
  assert.equal(divideRounded(4, 10), 0);
  assert.equal(divideRounded(0, 10), 0);
});

test('micros are whole cents at 10,000 a cent, half a cent rounded away from zero', () => {
  assert.equal(centsOfMicros(10_000), 1);
  assert.equal(centsOfMicros(123_456_789), 12_346);
  assert.equal(centsOfMicros(4_999), 0);
  assert.equal(centsOfMicros(5_000), 1);
  assert.equal(centsOfMicros(15_000), 2);
  assert.equal(centsOfMicros(-5_000), -1);
  assert.equal(centsOfMicros(-123_456_789), -12_346);
});

test('a rate is taken to the nearest whole basis point', () => {
  assert.equal(rateInBasisPoints(0.15), 1500);
  assert.equal(rateInBasisPoints(0.29), 2900);
  assert.equal(rateInBasisPoints(0.1 + 0.2), 3000);
  assert.equal(rateInBasisPoints(1), 10_000);
  assert.equal(rateInBasisPoints(0), 0);
  assert.equal(rateInBasisPoints(0.0001), 1);
  assert.equal(rateInBasisPoints(0.00004), 0);
  assert.equal(rateInBasisPoints(0.00006), 1);
});

test('a commission is the amount at the whole-basis-point rate, in cents rounded halves away from zero', () => {
  assert.equal(commissionCents(1000, 0.15), 150);
  assert.equal(commissionCents(333, 0.15), 50);
  assert.equal(commissionCents(-333, 0.15), -50);
  assert.equal(commissionCents(1, 0.5), 1);
  assert.equal(commissionCents(1, 0.49), 0);
  assert.equal(commissionCents(12_345, 0), 0);
  assert.equal(commissionCents(12_345, 1), 12_345);
});

test('no binary fraction of the rate leaks into a commission', () => {
  // In floating point 50 * 0.29 is 14.499999999999998 and 90 * 0.35 is 31.499999999999996: exact halves
  // that would round down.
  assert.equal(commissionCents(50, 0.29), 15);
  assert.equal(commissionCents(90, 0.35), 32);
  assert.equal(commissionCents(1250, 0.0012), 2);
  assert.equal(commissionCents(100_000, 0.15004), 15_000);
});

test('cents and micros are given to the API as dollar numbers', () => {
  assert.equal(dollars(123_450), 1234.5);
  assert.equal(dollars(5), 0.05);
  assert.equal(dollars(-199), -1.99);
  assert.equal(dollars(0), 0);
  assert.equal(dollarsOfMicros(1_234_567), 1.234567);
  assert.equal(dollarsOfMicros(-3421), -0.003421);
  assert.equal(dollarsOfMicros(10_000), 0.01);
});

test('cents are written for people with two decimals and a leading minus', () => {
  assert.equal(formatDollars(123_450), '1234.50');
  assert.equal(formatDollars(123_456), '1234.56');
  assert.equal(formatDollars(100), '1.00');
  assert.equal(formatDollars(5), '0.05');
  assert.equal(formatDollars(0), '0.00');
  assert.equal(formatDollars(-5), '-0.05');
  assert.equal(formatDollars(-123_456), '-1234.56');
});
