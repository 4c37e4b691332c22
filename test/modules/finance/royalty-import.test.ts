import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ApiError } from '../../../src/errors.ts';
import { NO_STATEMENT_NOTE } from '../../../src/modules/finance/finance.service.ts';
import { importStatement, unmatchedLines } from '../../../src/modules/finance/royalty-import.service.ts';
import { updateLabel } from '../../../src/modules/labels/labels.service.ts';
import { givenArtist, givenRelease, givenTrack } from '../../helpers/catalog.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness } from '../../helpers/harness.ts';
import { bytes, givenCatalog, ISRC_ONE, read, STATEMENT, UPC_NOBODY, UPC_ONE, UPC_TWO } from './fixtures.ts';

test('an import matches lines by ISRC and UPC, pays each label per month after its commission and keeps the rest for the operator', async (t) => {
  const h = await buildHarness(t);
  const { one, other, first, second, track, financeOnly } = await givenCatalog(h);
  // A sandbox holding a copy of the catalog (same UPCs) is never paid.
  const sandboxKey = await givenKey(h, one.label.id, { sandbox: true });
  assert.equal((await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })).statusCode, 200);

  const report = await importStatement(h.ctx, '/incoming/2026-02-sales.csv', bytes(STATEMENT));
  assert.equal(report.already_imported, false);
  assert.deepEqual(
    { ...report.statement, id: 0, content_hash: report.statement.content_hash.length },
    {
      id: 0,
      file_name: '2026-02-sales.csv',
      content_hash: 64,
      lines: 6,
      matched: 5,
      unmatched: 1,
      revenue: 475.0785,
      imported_at: '2026-03-02T10:00:00.000Z',
    },
  );
  assert.deepEqual(
    report.payouts.map(({ number, ...payout }) => ({ ...payout, number: /^2026\d{2}-\d{6}$/.test(number) })),
    [
      // 350.00 + 75.005 = 425.005: rounded once to 425.01; 15 % of it is 63.7515, kept as 63.75.
      {
        label_id: one.label.id,
        number: true,
        period: '2026-01',
        amount: 425.01,
        commission_rate: 0.15,
        commission: 63.75,
        net_amount: 361.26,
      },
      // 0.0035 + 40 = 40.0035: 40.00.
      {
        label_id: one.label.id,
        number: true,
        period: '2026-02',
        amount: 40,
        commission_rate: 0.15,
        commission: 6,
        net_amount: 34,
      },
      // 25 % of 10.05 is 2.5125: 2.51.
      {
        label_id: other.label.id,
        number: true,
        period: '2026-01',
        amount: 10.05,
        commission_rate: 0.25,
        commission: 2.51,
        net_amount: 7.54,
      },
    ],
  );
  const unmatched = {
    statement_id: report.statement.id,
    line: 7,
    period: '2026-01',
    upc: UPC_NOBODY,
    isrc: null,
    dsp: 'tidal',
    country: 'US',
    quantity: 5,
    revenue: 0.02,
    reason: 'no release with this UPC and no track with this ISRC',
  };
  assert.deepEqual(report.unmatched_lines, [unmatched]);
  assert.deepEqual(await unmatchedLines(h.ctx), [unmatched]);
  assert.deepEqual(await unmatchedLines(h.ctx, report.statement.id), [unmatched]);
  await assert.rejects(unmatchedLines(h.ctx, 999_999), { message: 'Statement 999999 not found' });

  const summary = await read(h, financeOnly, '/finance/summary');
  const [january, february] = report.payouts;
  assert.deepEqual(summary.body, {
    currency: 'USD',
    balance: { available: 395.26, earned: 395.26, withdrawn: 0 },
    label_terms: { commission_rate: 0.15, min_withdrawal: 50 },
    pending_withdrawals: [],
    recent_payouts: [
      {
        number: february?.number,
        period: '2026-02',
        amount: 40,
        commission: 6,
        applied_at: '2026-03-02T10:00:00.000Z',
      },
      {
        number: january?.number,
        period: '2026-01',
        amount: 425.01,
        commission: 63.75,
        applied_at: '2026-03-02T10:00:00.000Z',
      },
    ],
  });

  const lines = await read(h, one.key, '/finance/lines');
  assert.equal(lines.headers['x-total-count'], '4');
  const lineIds = (lines.body.lines as { id: number }[]).map((line) => line.id);
  assert.deepEqual(
    (lines.body.lines as object[]).map((line, index) => ({ ...line, id: lineIds[index] })),
    [
      {
        id: lineIds[0],
        period: '2026-02',
        release_id: first.id,
        track_id: track.id,
        upc: null,
        isrc: ISRC_ONE,
        dsp: 'youtube_music',
        country: 'GB',
        quantity: 20000,
        revenue: 40,
      },
      {
        id: lineIds[1],
        period: '2026-02',
        release_id: second.id,
        track_id: null,
        upc: UPC_TWO,
        isrc: null,
        dsp: 'spotify',
        country: 'US',
        quantity: 10,
        revenue: 0.0035,
      },
      {
        id: lineIds[2],
        period: '2026-01',
        release_id: first.id,
        track_id: null,
        upc: UPC_ONE,
        isrc: null,
        dsp: 'apple_music',
        country: 'US',
        quantity: 10000,
        revenue: 75.005,
      },
      {
        id: lineIds[3],
        period: '2026-01',
        release_id: first.id,
        track_id: track.id,
        upc: UPC_ONE,
        isrc: ISRC_ONE,
        dsp: 'spotify',
        country: 'DE',
        quantity: 100000,
        revenue: 350,
      },
    ],
  );

  // The other label sees its own payout only; the sandbox sees none of the real ones.
  const theirs = await read(h, other.key, '/finance/payouts');
  assert.deepEqual(
    (theirs.body.payouts as { period: string; net_amount: number }[]).map(({ period, net_amount }) => ({
      period,
      net_amount,
    })),
    [{ period: '2026-01', net_amount: 7.54 }],
  );
  const sandboxPayouts = await read(h, sandboxKey, '/finance/payouts');
  const realNumbers = report.payouts.map((payout) => payout.number);
  for (const payout of sandboxPayouts.body.payouts as { number: string }[]) {
    assert.ok(!realNumbers.includes(payout.number));
  }
});

test('the same file twice changes nothing', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const first = await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  h.clock.advance(60_000);
  const again = await importStatement(h.ctx, 'renamed-copy.csv', bytes(STATEMENT));
  assert.deepEqual(again, { ...first, already_imported: true });
  const payouts = await read(h, one.key, '/finance/payouts');
  assert.equal(payouts.body.total, 2);
  assert.equal((await read(h, one.key, '/finance/lines')).body.total, 4);
  assert.deepEqual((await read(h, one.key, '/finance/summary')).body.balance, {
    available: 395.26,
    earned: 395.26,
    withdrawn: 0,
  });
});

async function refusedImport(h: Harness, text: string, expected: { field: string; message: string }) {
  await assert.rejects(importStatement(h.ctx, 'bad.csv', bytes(text)), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid');
    assert.deepEqual({ field: error.extra.field, message: error.message }, expected);
    return true;
  });
}

test('a malformed statement is refused whole with the line and the reason', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const header = 'period,upc,isrc,dsp,country,quantity,revenue';
  const good = `2026-01,${UPC_ONE},,spotify,US,10,1.00`;
  const cases: [string, { field: string; message: string }][] = [
    [
      `${header}\n${good}\n2026-13,${UPC_ONE},,spotify,US,1,1`,
      { field: 'period', message: 'line 3: period "2026-13" is not a month YYYY-MM' },
    ],
    [
      `${header}\n${good}\n${good}\n2026-01,${UPC_ONE},,spotify,ZZ,1,1`,
      { field: 'country', message: 'line 4: country "ZZ" is not an ISO 3166-1 alpha-2 code' },
    ],
    [
      `${header}\n2026-01,036000291453,,spotify,US,1,1`,
      { field: 'upc', message: 'line 2: upc "036000291453" is not a UPC or EAN with a valid check digit' },
    ],
    [
      `${header}\n2026-01,,US-RC1-76-0783,spotify,US,1,1`,
      { field: 'isrc', message: 'line 2: isrc "US-RC1-76-0783" is not an ISRC' },
    ],
    [
      `${header}\n2026-01,,,spotify,US,1,1`,
      { field: 'upc', message: 'line 2: the line has neither a upc nor an isrc' },
    ],
    [
      `${header}\n2026-01,${UPC_ONE},,spotify,US,1.5,1`,
      { field: 'quantity', message: 'line 2: quantity "1.5" is not a whole number' },
    ],
    [
      `${header}\n2026-01,${UPC_ONE},,spotify,US,1,1.0000001`,
      {
        field: 'revenue',
        message: 'line 2: revenue "1.0000001" is not an amount in dollars with at most 6 decimals',
      },
    ],
    [
      `${header}\n2026-01,${UPC_ONE},,spotify,US,1,$1`,
      {
        field: 'revenue',
        message: 'line 2: revenue "$1" is not an amount in dollars with at most 6 decimals',
      },
    ],
    [
      `${header}\n2026-01,${UPC_ONE},,,US,1,1`,
      { field: 'dsp', message: 'line 2: dsp must name the platform in 1 to 64 characters' },
    ],
    [
      'period,upc,isrc,dsp,country,quantity\n2026-01,1,,spotify,US,1',
      {
        field: 'revenue',
        message:
          'line 1: the header has no "revenue" column (expected period, upc, isrc, dsp, country, quantity, revenue)',
      },
    ],
    [
      `${header}\n${good}\n2026-01,${UPC_ONE},spotify`,
      {
        field: 'file',
        message: 'line 3: not readable as CSV (Invalid Record Length: expect 7, got 3 on line 3)',
      },
    ],
    [header, { field: 'file', message: 'line 2: the statement has a header but no lines' }],
    [
      `${header}\n2026-01,${UPC_ONE},,spo\u0000tify,US,1,1`,
      { field: 'dsp', message: 'line 2: dsp must not hold control characters' },
    ],
    [
      `${header},revenue\n2026-01,${UPC_ONE},,spotify,US,1,1,2`,
      { field: 'revenue', message: 'line 1: the header names "revenue" twice' },
    ],
    [
      `${header}\n2026-01,${UPC_ONE},,spotify,US,1000000000001,1`,
      { field: 'quantity', message: 'line 2: quantity 1000000000001 is beyond 1000000000000' },
    ],
    [
      `${header}\n2026-01,${UPC_ONE},,spotify,US,1,-1000000000.000001`,
      { field: 'revenue', message: 'line 2: revenue -1000000000.000001 is beyond 1000000000 dollars' },
    ],
    [
      `${header}\n${Array.from({ length: 10 }, () => `2026-01,${UPC_ONE},,spotify,US,1,999999999`).join('\n')}`,
      {
        field: 'file',
        message: 'line 11: the statement adds up to more than can be counted exactly: split it',
      },
    ],
    ['', { field: 'file', message: 'line 1: the file is empty' }],
  ];
  for (const [text, expected] of cases) await refusedImport(h, text, expected);
  await assert.rejects(importStatement(h.ctx, 'latin1.csv', new Uint8Array([0x70, 0xe9, 0x0a])), {
    message: 'the statement is not UTF-8 text',
  });
  const statements = await h.ctx.db.selectFrom('royalty_statements').select('id').execute();
  const lines = await h.ctx.db.selectFrom('royalty_lines').select('id').execute();
  assert.deepEqual({ statements, lines }, { statements: [], lines: [] });
  assert.equal((await read(h, one.key, '/finance/summary')).body.note, NO_STATEMENT_NOTE);
});

test('a statement in another column order, with a byte-order mark, quotes, CRLF and extra columns, reads the same', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const text = `\uFEFFRevenue,Country,Extra,DSP,Quantity,UPC,ISRC,Period\r\n"1,000.5",us,x,Spotify,3,${UPC_ONE},,2026-01\r\n`;
  await refusedImport(h, text, {
    field: 'revenue',
    message: 'line 2: revenue "1,000.5" is not an amount in dollars with at most 6 decimals',
  });
  const report = await importStatement(h.ctx, 'ok.csv', bytes(text.replace('"1,000.5"', '"1000.5"')));
  assert.deepEqual(
    report.payouts.map((payout) => [payout.label_id, payout.amount]),
    [[one.label.id, 1000.5]],
  );
});

test('the commission is taken at whole basis points, and the payout keeps that rate', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await updateLabel(h.ctx, one.label.id, { commission: 0.12345 });
  const report = await importStatement(
    h.ctx,
    'odd-rate.csv',
    bytes(`period,upc,isrc,dsp,country,quantity,revenue\n2026-01,${UPC_ONE},,spotify,US,1,1000`),
  );
  assert.deepEqual(
    report.payouts.map(({ amount, commission_rate, commission, net_amount }) => ({
      amount,
      commission_rate,
      commission,
      net_amount,
    })),
    [{ amount: 1000, commission_rate: 0.1235, commission: 123.5, net_amount: 876.5 }],
  );
});

test("the README's example statement imports as the README says", async (t) => {
  const h = await buildHarness(t);
  const caller = await givenCaller(h, { plan: 'label' });
  const artist = await givenArtist(h, caller.label.id);
  const release = await givenRelease(h, caller.label.id, {
    artist_id: artist.id,
    status: 'live',
    upc: '0860000000017',
  });
  await givenTrack(h, caller.label.id, release.id, { isrc: 'USLD02600001' });
  const file = readFileSync(new URL('../../../examples/royalty-statement.csv', import.meta.url));
  const report = await importStatement(h.ctx, 'royalty-statement.csv', file);
  assert.deepEqual(
    report.payouts.map(({ period, amount, commission, net_amount }) => ({
      period,
      amount,
      commission,
      net_amount,
    })),
    [
      { period: '2026-10', amount: 282.62, commission: 42.39, net_amount: 240.23 },
      { period: '2026-11', amount: 193.71, commission: 29.06, net_amount: 164.65 },
    ],
  );
  assert.deepEqual(
    report.unmatched_lines.map((line) => [line.line, line.upc]),
    [[8, '0860000000031']],
  );
  assert.deepEqual((await read(h, caller.key, '/finance/summary')).body.balance, {
    available: 404.88,
    earned: 404.88,
    withdrawn: 0,
  });
});
