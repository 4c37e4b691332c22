import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_STATEMENT_NOTE } from '../../../src/modules/finance/finance.service.ts';
import { importStatement } from '../../../src/modules/finance/royalty-import.service.ts';
import { updateLabel } from '../../../src/modules/labels/labels.service.ts';
import { resetSandbox } from '../../../src/modules/sandbox/sandbox.service.ts';
import { buildHarness, call, givenKey, json } from '../../helpers/harness.ts';
import { bytes, givenCatalog, read, STATEMENT, UPC_ONE } from './fixtures.ts';

const FINANCE_ROUTES = [
  '/finance/summary',
  '/finance/payouts',
  '/finance/withdrawals',
  '/finance/platforms',
  '/finance/countries',
  '/finance/statements',
  '/finance/lines',
];

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
