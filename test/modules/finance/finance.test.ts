import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ApiError } from '../../../src/errors.ts';
import { NO_STATEMENT_NOTE } from '../../../src/modules/finance/finance.service.ts';
import { importStatement, unmatchedLines } from '../../../src/modules/finance/royalty-import.service.ts';
import { createWithdrawal, moveWithdrawal } from '../../../src/modules/finance/withdrawals.service.ts';
import { updateLabel } from '../../../src/modules/labels/labels.service.ts';
import { resetSandbox } from '../../../src/modules/sandbox/sandbox.service.ts';
import { givenArtist, givenRelease, givenTrack } from '../../helpers/catalog.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../../helpers/harness.ts';

const UPC_ONE = '036000291452';
const UPC_TWO = '0860000000017';
const UPC_OTHER_LABEL = '0860000000024';
const UPC_NOBODY = '0860000000031';
const ISRC_ONE = 'USRC17607839';

const FINANCE_ROUTES = [
  '/finance/summary',
  '/finance/payouts',
  '/finance/withdrawals',
  '/finance/platforms',
  '/finance/countries',
  '/finance/statements',
  '/finance/lines',
];

/**
 * Label One: two payouts (January with a half cent to round, February with fractions of a cent);
 * the other label: one payout at 25 %; one line nobody owns.
 */
const STATEMENT = [
  'period,upc,isrc,dsp,country,quantity,revenue',
  `2026-01,${UPC_ONE},${ISRC_ONE},Spotify,de,100000,350.00`,
  `2026-01,${UPC_ONE},,apple_music,US,10000,75.005`,
  `2026-02,${UPC_TWO},,spotify,US,10,0.0035`,
  `2026-02,,${ISRC_ONE},YouTube Music,GB,20000,40`,
  `2026-01,${UPC_OTHER_LABEL},,deezer,FR,5000,10.05`,
  `2026-01,${UPC_NOBODY},,tidal,US,5,0.02`,
].join('\n');

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

async function givenCatalog(h: Harness) {
  const one = await givenCaller(h, { plan: 'label' });
  const artist = await givenArtist(h, one.label.id);
  const live = { artist_id: artist.id, status: 'live' };
  const first = await givenRelease(h, one.label.id, { ...live, title: 'Night Drive', upc: UPC_ONE });
  const track = await givenTrack(h, one.label.id, first.id, { isrc: ISRC_ONE });
  const second = await givenRelease(h, one.label.id, { ...live, title: 'Tidewater', upc: UPC_TWO });
  // Terms by agreement: the Start plan's 25 % on a plan whose keys may read finance.
  const other = await givenCaller(h, { plan: 'label' });
  await updateLabel(h.ctx, other.label.id, { commission: 0.25 });
  await givenRelease(h, other.label.id, { title: 'Elsewhere', status: 'live', upc: UPC_OTHER_LABEL });
  const financeOnly = await givenKey(h, one.label.id, { scopes: ['finance:read'] });
  return { one, other, first, second, track, financeOnly };
}

async function read(h: Harness, key: string, url: string) {
  const response = await call(h, 'GET', `/api/v1${url}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['cache-control'], 'no-store');
  return { body: json(response) as Record<string, unknown>, headers: response.headers };
}

test('before the first statement every finance list is empty and carries the note', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const summary = await read(h, one.key, '/finance/summary');
  assert.deepEqual(summary.body, {
    currency: 'USD',
    balance: { available: 0, earned: 0, withdrawn: 0 },
    label_terms: { commission_rate: 0.15, min_withdrawal: 50 },
    pending_withdrawals: [],
    recent_payouts: [],
    note: NO_STATEMENT_NOTE,
  });
  const page = { page: 1, per_page: 20, total: 0 };
  assert.deepEqual((await read(h, one.key, '/finance/payouts')).body, {
    currency: 'USD',
    payouts: [],
    note: NO_STATEMENT_NOTE,
    ...page,
  });
  assert.deepEqual((await read(h, one.key, '/finance/withdrawals')).body, {
    currency: 'USD',
    withdrawals: [],
    note: NO_STATEMENT_NOTE,
    ...page,
  });
  for (const [url, list] of [
    ['/finance/platforms', 'platforms'],
    ['/finance/countries', 'countries'],
    ['/finance/statements', 'statements'],
  ] as const) {
    assert.deepEqual((await read(h, one.key, url)).body, {
      currency: 'USD',
      [list]: [],
      note: NO_STATEMENT_NOTE,
    });
  }
  const lines = await read(h, one.key, '/finance/lines');
  assert.deepEqual(lines.body, { currency: 'USD', lines: [], note: NO_STATEMENT_NOTE, ...page });
  assert.equal(lines.headers['x-total-count'], '0');
});

test('every finance route needs finance:read', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const catalogOnly = await givenKey(h, one.label.id, { scopes: ['catalog:read'] });
  for (const url of FINANCE_ROUTES) {
    const response = await call(h, 'GET', `/api/v1${url}`, { key: catalogOnly });
    assert.equal(response.statusCode, 403, url);
    const body = json(response) as { code: string; required_scope: string };
    assert.deepEqual(body, {
      error: 'This key lacks the scope finance:read',
      code: 'forbidden',
      required_scope: 'finance:read',
    });
  }
});

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

test('balance: earned minus withdrawn minus withdrawals in processing; pending and rejected ones take nothing', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const balance = async () => (await read(h, one.key, '/finance/summary')).body;

  await assert.rejects(createWithdrawal(h.ctx, one.label.id, '49.99'), {
    message: '49.99 is under the minimum withdrawal of 50.00',
  });
  await assert.rejects(createWithdrawal(h.ctx, one.label.id, '395.27'), {
    message: '395.27 is over the available balance of 395.26',
  });
  await assert.rejects(createWithdrawal(h.ctx, one.label.id, '12.345'), {
    message: 'amount "12.345" is not a sum of dollars above zero with at most two decimals',
  });
  const first = await createWithdrawal(h.ctx, one.label.id, '100');
  assert.deepEqual(first, {
    withdrawal: {
      id: first.withdrawal.id,
      label_id: one.label.id,
      amount: 100,
      status: 'pending',
      created_at: '2026-03-02T10:00:00.000Z',
      updated_at: '2026-03-02T10:00:00.000Z',
    },
    balance: { available: 395.26, earned: 395.26, withdrawn: 0, processing: 0 },
  });
  // What pending requests ask for is set aside when the next one is weighed.
  await assert.rejects(createWithdrawal(h.ctx, one.label.id, '300'), {
    message: '300.00 is over the available balance of 395.26, of which 100.00 is already requested',
  });
  h.clock.advance(60_000);
  const second = await createWithdrawal(h.ctx, one.label.id, '200.50');
  const body = await balance();
  assert.deepEqual(body.balance, { available: 395.26, earned: 395.26, withdrawn: 0 });
  assert.deepEqual(body.pending_withdrawals, [
    { id: second.withdrawal.id, amount: 200.5, status: 'pending', created_at: '2026-03-02T10:01:00.000Z' },
    { id: first.withdrawal.id, amount: 100, status: 'pending', created_at: '2026-03-02T10:00:00.000Z' },
  ]);

  await assert.rejects(moveWithdrawal(h.ctx, first.withdrawal.id, 'paid'), {
    message: `Withdrawal ${first.withdrawal.id} is pending: it can only become processing or rejected`,
  });
  await assert.rejects(moveWithdrawal(h.ctx, first.withdrawal.id, 'done'), {
    message: 'status must be one of processing, paid, rejected',
  });
  await moveWithdrawal(h.ctx, first.withdrawal.id, 'processing');
  assert.deepEqual((await balance()).balance, { available: 295.26, earned: 395.26, withdrawn: 0 });
  const processing = await moveWithdrawal(h.ctx, second.withdrawal.id, 'processing');
  assert.deepEqual(processing.balance, { available: 94.76, earned: 395.26, withdrawn: 0, processing: 300.5 });
  await moveWithdrawal(h.ctx, first.withdrawal.id, 'paid');
  assert.deepEqual((await balance()).balance, { available: 94.76, earned: 395.26, withdrawn: 100 });
  await moveWithdrawal(h.ctx, second.withdrawal.id, 'rejected');
  const after = await balance();
  assert.deepEqual(after.balance, { available: 295.26, earned: 395.26, withdrawn: 100 });
  assert.deepEqual(after.pending_withdrawals, []);
  await assert.rejects(moveWithdrawal(h.ctx, first.withdrawal.id, 'processing'), {
    message: `Withdrawal ${first.withdrawal.id} is paid: it can change no more`,
  });
  await assert.rejects(moveWithdrawal(h.ctx, 999_999, 'processing'), {
    message: 'Withdrawal 999999 not found',
  });

  const list = await read(h, one.key, '/finance/withdrawals?per_page=1');
  assert.deepEqual(list.body, {
    currency: 'USD',
    withdrawals: [
      {
        id: second.withdrawal.id,
        amount: 200.5,
        status: 'rejected',
        created_at: '2026-03-02T10:01:00.000Z',
        updated_at: '2026-03-02T10:01:00.000Z',
      },
    ],
    page: 1,
    per_page: 1,
    total: 2,
  });
  assert.equal(list.headers['x-total-count'], '2');
  assert.match(String(list.headers.link), /page=2&per_page=1>; rel="next"/);
});

test('returns in a later statement lower the balance; a pending request it no longer covers is rejected', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const pending = await createWithdrawal(h.ctx, one.label.id, '300');
  const returns = `period,upc,isrc,dsp,country,quantity,revenue\n2026-03,${UPC_ONE},,spotify,DE,-50000,-200`;
  const report = await importStatement(h.ctx, 'returns.csv', bytes(returns));
  assert.deepEqual(
    report.payouts.map(({ amount, commission, net_amount }) => ({ amount, commission, net_amount })),
    [{ amount: -200, commission: -30, net_amount: -170 }],
  );
  assert.deepEqual((await read(h, one.key, '/finance/summary')).body.balance, {
    available: 225.26,
    earned: 225.26,
    withdrawn: 0,
  });
  await assert.rejects(moveWithdrawal(h.ctx, pending.withdrawal.id, 'processing'), {
    message: `Withdrawal ${pending.withdrawal.id} asks for 300.00, over the available balance of 225.26`,
  });
  const rejected = await moveWithdrawal(h.ctx, pending.withdrawal.id, 'rejected');
  assert.equal(rejected.withdrawal.status, 'rejected');
  const next = await createWithdrawal(h.ctx, one.label.id, '225.26');
  assert.equal(next.withdrawal.status, 'pending');
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

test('a withdrawal moves to processing only while the balance covers it', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const first = await createWithdrawal(h.ctx, one.label.id, '300');
  await moveWithdrawal(h.ctx, first.withdrawal.id, 'processing');
  await moveWithdrawal(h.ctx, first.withdrawal.id, 'rejected');
  const second = await createWithdrawal(h.ctx, one.label.id, '300');
  const third = await createWithdrawal(h.ctx, one.label.id, '95.26');
  await moveWithdrawal(h.ctx, second.withdrawal.id, 'processing');
  await moveWithdrawal(h.ctx, third.withdrawal.id, 'processing');
  assert.deepEqual((await read(h, one.key, '/finance/summary')).body.balance, {
    available: 0,
    earned: 395.26,
    withdrawn: 0,
  });
  await assert.rejects(createWithdrawal(h.ctx, one.label.id, '50'), {
    message: '50.00 is over the available balance of 0.00',
  });
});

test('withdrawals are for real labels only', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const sandboxKey = await givenKey(h, one.label.id, { sandbox: true });
  await read(h, sandboxKey, '/finance/summary');
  const sandbox = await h.ctx.db
    .selectFrom('labels')
    .select('id')
    .where('parent_id', '=', one.label.id)
    .executeTakeFirstOrThrow();
  await assert.rejects(createWithdrawal(h.ctx, sandbox.id, '60'), {
    message: 'Name the label itself, not its sandbox',
  });
  await assert.rejects(createWithdrawal(h.ctx, 999_999, '60'), { message: 'Label 999999 not found' });
  const invented = await h.ctx.db
    .selectFrom('withdrawals')
    .select('id')
    .where('label_id', '=', sandbox.id)
    .executeTakeFirstOrThrow();
  await assert.rejects(moveWithdrawal(h.ctx, invented.id, 'processing'), {
    message: `Withdrawal ${invented.id} is invented for a sandbox: there is nothing to pay`,
  });
});

test('payouts, platforms, countries and statements read the imported figures', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  const report = await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const [january, february] = report.payouts;
  const payouts = await read(h, one.key, '/finance/payouts?per_page=1&page=2');
  assert.deepEqual(payouts.body, {
    currency: 'USD',
    payouts: [
      {
        number: january?.number,
        period: '2026-01',
        amount: 425.01,
        commission: 63.75,
        net_amount: 361.26,
        credited: true,
        applied_at: '2026-03-02T10:00:00.000Z',
      },
    ],
    page: 2,
    per_page: 1,
    total: 2,
  });
  assert.equal(payouts.headers['x-total-count'], '2');
  assert.ok(february);

  assert.deepEqual((await read(h, one.key, '/finance/platforms')).body, {
    currency: 'USD',
    platforms: [
      { dsp: 'spotify', name: 'Spotify', quantity: 100010, revenue: 350, share_percent: 75.3 },
      { dsp: 'apple_music', name: 'Apple Music', quantity: 10000, revenue: 75.01, share_percent: 16.1 },
      { dsp: 'youtube_music', name: 'YouTube Music', quantity: 20000, revenue: 40, share_percent: 8.6 },
    ],
  });
  assert.deepEqual((await read(h, one.key, '/finance/platforms?from=2026-02-15')).body, {
    currency: 'USD',
    platforms: [
      { dsp: 'youtube_music', name: 'YouTube Music', quantity: 20000, revenue: 40, share_percent: 100 },
      { dsp: 'spotify', name: 'Spotify', quantity: 10, revenue: 0, share_percent: 0 },
    ],
  });
  assert.deepEqual((await read(h, one.key, '/finance/countries?to=2026-01')).body, {
    currency: 'USD',
    countries: [
      { country: 'DE', name: 'Germany', quantity: 100000, revenue: 350, share_percent: 82.4 },
      {
        country: 'US',
        name: 'United States of America',
        quantity: 10000,
        revenue: 75.01,
        share_percent: 17.6,
      },
    ],
  });
  assert.deepEqual((await read(h, one.key, '/finance/statements')).body, {
    currency: 'USD',
    statements: [
      {
        period: '2026-02',
        quantity: 20010,
        amount: 40,
        commission: 6,
        net_amount: 34,
        applied_at: '2026-03-02T10:00:00.000Z',
      },
      {
        period: '2026-01',
        quantity: 110000,
        amount: 425.01,
        commission: 63.75,
        net_amount: 361.26,
        applied_at: '2026-03-02T10:00:00.000Z',
      },
    ],
  });
  assert.deepEqual(
    (
      (await read(h, one.key, '/finance/statements?from=2026-02&to=2026-02-28')).body.statements as {
        period: string;
      }[]
    ).map((month) => month.period),
    ['2026-02'],
  );
  // Figures after a later statement with a changed commission: the first payouts keep their rate.
  await updateLabel(h.ctx, one.label.id, { commission: 0.1 });
  await importStatement(
    h.ctx,
    'march.csv',
    bytes(`period,upc,isrc,dsp,country,quantity,revenue\n2026-03,${UPC_ONE},,spotify,US,1,100`),
  );
  const march = await read(h, one.key, '/finance/payouts?per_page=1');
  assert.deepEqual(
    (march.body.payouts as { period: string; commission: number }[]).map(({ period, commission }) => ({
      period,
      commission,
    })),
    [{ period: '2026-03', commission: 10 }],
  );
  assert.deepEqual((await read(h, one.key, '/finance/summary')).body.label_terms, {
    commission_rate: 0.1,
    min_withdrawal: 50,
  });
});

test('lines filter by release, platform, country and months given as months or dates', async (t) => {
  const h = await buildHarness(t);
  const { one, first, second } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const periodsOf = async (query: string) => {
    const { body, headers } = await read(h, one.key, `/finance/lines?${query}`);
    const lines = body.lines as { period: string; dsp: string; country: string; release_id: number }[];
    assert.equal(headers['x-total-count'], String(body.total));
    assert.equal(body.note, undefined);
    return lines.map((line) => `${line.period} ${line.release_id} ${line.dsp} ${line.country}`);
  };
  assert.deepEqual(await periodsOf(`release_id=${second.id}`), [`2026-02 ${second.id} spotify US`]);
  assert.deepEqual(await periodsOf('dsp=spotify'), [
    `2026-02 ${second.id} spotify US`,
    `2026-01 ${first.id} spotify DE`,
  ]);
  assert.deepEqual(await periodsOf('dsp=Apple%20Music'), [`2026-01 ${first.id} apple_music US`]);
  assert.deepEqual(await periodsOf('country=us'), [
    `2026-02 ${second.id} spotify US`,
    `2026-01 ${first.id} apple_music US`,
  ]);
  assert.deepEqual(await periodsOf('from=2026-02-01&to=2026-02'), [
    `2026-02 ${first.id} youtube_music GB`,
    `2026-02 ${second.id} spotify US`,
  ]);
  assert.deepEqual(await periodsOf('to=2026-01-31&dsp=apple_music&country=US'), [
    `2026-01 ${first.id} apple_music US`,
  ]);
  assert.deepEqual(await periodsOf('country=FR'), []);
  assert.deepEqual(await periodsOf('per_page=1&page=4'), [`2026-01 ${first.id} spotify DE`]);

  const refused = async (query: string, field: string) => {
    const response = await call(h, 'GET', `/api/v1/finance/lines?${query}`, { key: one.key });
    assert.equal(response.statusCode, 400, query);
    const body = json(response) as { code: string; field: string };
    assert.deepEqual([body.code, body.field], ['invalid', field], query);
  };
  await refused('from=2026-13', 'from');
  await refused('from=2026-02-30', 'from');
  await refused('to=March', 'to');
  await refused('from=2026-03&to=2026-02', 'to');
  await refused('release_id=abc', 'release_id');
  await refused('country=DEU', 'country');
  const platforms = await call(h, 'GET', '/api/v1/finance/platforms?from=2026-1', { key: one.key });
  assert.equal(platforms.statusCode, 400);
});

test('a sandbox key reads invented figures: plausible, the same every time, never the real ones', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const sandboxKey = await givenKey(h, one.label.id, { sandbox: true, scopes: ['finance:read'] });
  const summary = await call(h, 'GET', '/api/v1/finance/summary', { key: sandboxKey });
  assert.equal(summary.headers['x-sandbox'], 'true');
  const body = json(summary) as {
    balance: { available: number; earned: number; withdrawn: number };
    recent_payouts: { number: string; period: string; amount: number; commission: number }[];
    pending_withdrawals: unknown[];
    note?: string;
  };
  assert.equal(body.note, undefined);
  assert.deepEqual(
    body.recent_payouts.map((payout) => payout.period),
    ['2026-02', '2026-01', '2025-12', '2025-11', '2025-10'],
  );
  for (const payout of body.recent_payouts) {
    assert.ok(payout.amount > 100, `${payout.amount}`);
    assert.equal(payout.commission, Math.round(payout.amount * 15) / 100);
  }
  assert.ok(body.balance.withdrawn > 0);
  assert.equal(
    Math.round((body.balance.earned - body.balance.withdrawn) * 100),
    Math.round(body.balance.available * 100),
  );
  assert.notEqual(body.balance.earned, 395.26);

  // The same figures on every call and for every sandbox key of the label, across routes.
  const secondKey = await givenKey(h, one.label.id, { sandbox: true });
  for (const url of FINANCE_ROUTES) {
    const a = await read(h, sandboxKey, url);
    const b = await read(h, secondKey, url);
    assert.deepEqual(a.body, b.body, url);
  }
  const platforms = (await read(h, sandboxKey, '/finance/platforms')).body.platforms as { dsp: string }[];
  assert.deepEqual(platforms.map((platform) => platform.dsp).sort(), [
    'amazon_music',
    'apple_music',
    'deezer',
    'spotify',
    'youtube_music',
  ]);
  const lines = await read(h, sandboxKey, '/finance/lines?per_page=100');
  assert.equal(lines.body.total, 6 * 2 * 5 * 5);
  // A reset makes the figures again from the new copy of the catalog: the same sums, the new release ids.
  const before = (await read(h, sandboxKey, '/finance/summary')).body;
  await resetSandbox(h.ctx, one.label.id);
  assert.deepEqual((await read(h, sandboxKey, '/finance/summary')).body, before);
  const copies = (await read(h, secondKey, '/releases')).body.releases as { id: number }[];
  const linesAfter = (await read(h, sandboxKey, '/finance/lines?per_page=100')).body.lines as {
    release_id: number;
  }[];
  assert.deepEqual(
    [...new Set(linesAfter.map((line) => line.release_id))].sort(),
    copies.map((release) => release.id).sort(),
  );
  // The real label's figures are untouched by the sandbox.
  assert.deepEqual((await read(h, one.key, '/finance/summary')).body.balance, {
    available: 395.26,
    earned: 395.26,
    withdrawn: 0,
  });
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
