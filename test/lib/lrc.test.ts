import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatLrc,
  type LyricLine,
  linesToText,
  normalizeLines,
  parseLrc,
  roundToCentiseconds,
} from '../../src/lib/lrc.ts';

function parsed(lrc: string): LyricLine[] {
  const result = parseLrc(lrc);
  assert.ok(result.ok, lrc);
  return result.lines;
}

test('a time converts to [mm:ss.xx] and back exactly, in centiseconds', () => {
  assert.equal(formatLrc([{ time: 83.5, text: 'Hello' }]), '[01:23.50] Hello');
  assert.deepEqual(parsed('[01:23.50] Hello'), [{ time: 83.5, text: 'Hello' }]);
  assert.equal(formatLrc([{ time: 0, text: 'Start' }]), '[00:00.00] Start');
  assert.equal(formatLrc([{ time: 0.07, text: 'x' }]), '[00:00.07] x');
  assert.equal(formatLrc([{ time: 6000.99, text: 'long' }]), '[100:00.99] long');
  assert.deepEqual(parsed('[100:00.99] long'), [{ time: 6000.99, text: 'long' }]);
});

test('lines -> LRC -> lines is the identity for every centisecond time', () => {
  const lines: LyricLine[] = [];
  for (let cs = 0; cs < 20000; cs += 7) lines.push({ time: cs / 100, text: `line ${cs}` });
  assert.deepEqual(parsed(formatLrc(lines)), lines);
});

test('LRC -> lines -> LRC is the identity for canonical LRC', () => {
  const lrc = ['[00:01.00] First', '[00:02.05]', '[00:59.99] Third', '[12:34.56] Fourth'].join('\n');
  assert.equal(formatLrc(parsed(lrc)), lrc);
});

test('fractions of one or three digits, and no fraction, are read as centiseconds', () => {
  assert.deepEqual(parsed('[00:01.5] a\n[00:02.505] b\n[00:03] c\n[0:04:25] d'), [
    { time: 1.5, text: 'a' },
    { time: 2.51, text: 'b' },
    { time: 3, text: 'c' },
    { time: 4.25, text: 'd' },
  ]);
});

test('blank lines, ID tags, CRLF and a byte-order mark are accepted; repeated time tags expand', () => {
  const lrc =
    '\uFEFF[ar:Mira Vale]\r\n[ti:Night Drive]\r\n\r\n[00:30.00][00:10.00] Chorus\r\n[00:20.00] Verse';
  assert.deepEqual(parsed(lrc), [
    { time: 10, text: 'Chorus' },
    { time: 20, text: 'Verse' },
    { time: 30, text: 'Chorus' },
  ]);
});

test('malformed LRC is refused with the line number', () => {
  for (const [lrc, reason] of [
    ['[00:01.00] ok\nno tag here', /line 2/],
    ['[00:75.00] too many seconds', /below 60/],
    ['[Chorus]', /line 1/],
    ['[aa:bb.cc] text', /line 1/],
    ['[offset:+250]\n[00:01.00] a', /offset/],
  ] as const) {
    const result = parseLrc(lrc);
    assert.equal(result.ok, false, lrc);
    if (!result.ok) assert.match(result.reason, reason);
  }
  assert.deepEqual(parsed('[offset:0]\n[00:01.00] a'), [{ time: 1, text: 'a' }]);
});

test('plain text is built from the lines', () => {
  assert.equal(
    linesToText([
      { time: 1, text: 'One' },
      { time: 2, text: '' },
      { time: 3, text: 'Two' },
    ]),
    'One\n\nTwo',
  );
});

test('normalizeLines rounds to centiseconds, trims, sorts and refuses bad times and line breaks', () => {
  assert.equal(roundToCentiseconds(83.456), 83.46);
  assert.deepEqual(
    normalizeLines([
      { time: 5.004, text: ' b ' },
      { time: 1.2345, text: 'a' },
    ]),
    {
      ok: true,
      lines: [
        { time: 1.23, text: 'a' },
        { time: 5, text: 'b' },
      ],
    },
  );
  assert.equal(normalizeLines([{ time: -1, text: 'a' }]).ok, false);
  assert.equal(normalizeLines([{ time: Number.NaN, text: 'a' }]).ok, false);
  assert.equal(normalizeLines([{ time: 1, text: 'a\nb' }]).ok, false);
});
