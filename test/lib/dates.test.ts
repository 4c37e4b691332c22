import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDays, daysBetween, isCalendarDate, isMonth, MONTH_PATTERN, utcDay } from '../../src/lib/dates.ts';

test('a statement month is YYYY-MM with a month from 01 to 12', () => {
  for (const month of ['2026-01', '2026-09', '2026-10', '2026-12', '1999-07']) {
    assert.ok(isMonth(month), month);
  }
  for (const text of [
    '2026-00',
    '2026-13',
    '2026-1',
    '26-01',
    '2026-01-01',
    '2026/01',
    ' 2026-01',
    '2026-01\n',
    '',
  ]) {
    assert.ok(!isMonth(text), JSON.stringify(text));
  }
});

test('the month pattern the schemas publish is the one isMonth applies', () => {
  const pattern = new RegExp(MONTH_PATTERN);
  for (const text of ['2026-01', '2026-12', '2026-00', '2026-13', '2026-1', '2026-01-01']) {
    assert.equal(pattern.test(text), isMonth(text), text);
  }
});

test('a calendar date names a day that exists', () => {
  for (const day of ['2026-01-01', '2026-01-31', '2026-02-28', '2026-04-30', '2026-12-31', '1970-01-01']) {
    assert.ok(isCalendarDate(day), day);
  }
  for (const day of [
    '2026-02-30',
    '2026-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-01-32',
  ]) {
    assert.ok(!isCalendarDate(day), day);
  }
});

test('February 29 exists in leap years only: every fourth year, not centuries, but every fourth century', () => {
  assert.ok(isCalendarDate('2024-02-29'));
  assert.ok(isCalendarDate('2000-02-29'));
  assert.ok(!isCalendarDate('2100-02-29'));
  assert.ok(!isCalendarDate('2027-02-29'));
});

test('a calendar date is written YYYY-MM-DD and nothing else', () => {
  for (const text of [
    '2026-1-01',
    '2026-01-1',
    '20260101',
    '2026/01/01',
    '2026-01-01T00:00:00Z',
    ' 2026-01-01',
    '',
  ]) {
    assert.ok(!isCalendarDate(text), JSON.stringify(text));
  }
});

test('the day of an instant is its UTC date, whatever offset it was written with', () => {
  assert.equal(utcDay(new Date('2026-03-01T00:00:00.000Z')), '2026-03-01');
  assert.equal(utcDay(new Date('2026-03-01T23:59:59.999Z')), '2026-03-01');
  assert.equal(utcDay(new Date('2026-03-01T23:30:00-05:00')), '2026-03-02');
  assert.equal(utcDay(new Date('2026-03-02T01:00:00+02:00')), '2026-03-01');
});

test('adding days crosses month ends, leap days and year ends', () => {
  assert.equal(addDays('2026-03-02', 0), '2026-03-02');
  assert.equal(addDays('2026-01-31', 1), '2026-02-01');
  assert.equal(addDays('2026-02-28', 1), '2026-03-01');
  assert.equal(addDays('2024-02-28', 1), '2024-02-29');
  assert.equal(addDays('2024-02-29', 1), '2024-03-01');
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  assert.equal(addDays('2026-01-01', 365), '2027-01-01');
  assert.equal(addDays('2024-01-01', 365), '2024-12-31');
});

test('negative days count backwards', () => {
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
  assert.equal(addDays('2024-03-01', -1), '2024-02-29');
  assert.equal(addDays('2027-01-01', -1), '2026-12-31');
  assert.equal(addDays('2026-03-02', -30), '2026-01-31');
});

test('the days between two dates include both ends, oldest first', () => {
  assert.deepEqual(daysBetween('2026-02-27', '2026-03-02'), [
    '2026-02-27',
    '2026-02-28',
    '2026-03-01',
    '2026-03-02',
  ]);
  assert.deepEqual(daysBetween('2026-12-31', '2027-01-01'), ['2026-12-31', '2027-01-01']);
  assert.equal(daysBetween('2024-01-01', '2024-12-31').length, 366);
});

test('the days from a date to itself are that date; from a later date to an earlier one, none', () => {
  assert.deepEqual(daysBetween('2026-03-02', '2026-03-02'), ['2026-03-02']);
  assert.deepEqual(daysBetween('2026-03-02', '2026-03-01'), []);
  assert.deepEqual(daysBetween('2027-01-01', '2026-12-31'), []);
});
