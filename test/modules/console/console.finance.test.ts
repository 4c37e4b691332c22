// The console's Finance page (issue 20): balance, payouts, withdrawals, "Request withdrawal".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importStatement } from '../../../src/modules/finance/royalty-import.service.ts';
import { buildHarness, call, givenLabel, type Harness, json } from '../../helpers/harness.ts';
import { bytes, givenCatalog, STATEMENT } from '../finance/fixtures.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

async function signedInAs(h: Harness, labelId: number, login: string, role: string): Promise<Browser> {
  const { invitePath } = await givenInvitedMember(h, labelId, { login, role });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  return browser;
}

const withdrawalRows = (body: string) =>
  [
    ...(/<h2 id="withdrawals">[\s\S]*?<\/section>/.exec(body)?.[0] ?? '').matchAll(
      /<tr><td>(\d+)<\/td><td class="n">([^<]*)<\/td><td>([^<]*)<\/td>/g,
    ),
  ].map(([, id, amount, status]) => ({ id: Number(id), amount, status }));

test('an accountant sees the balance and payouts, and requests a withdrawal the API then lists', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const accountant = await signedInAs(h, one.label.id, 'ben', 'accountant');

  const page = await accountant.get('/console/finance');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<a href="\/console\/finance" aria-current="page">Finance<\/a>/);
  assert.match(page.body, /<tbody><tr><td>395\.26<\/td><td>395\.26<\/td><td>0\.00<\/td><\/tr><\/tbody>/);
  assert.match(page.body, /the smallest withdrawal is 50\.00 USD/);
  assert.equal(
    (page.body.match(/<td>2026-0[12]<\/td>/g) ?? []).length,
    2,
    'its two payouts, not the other label’s',
  );
  assert.deepEqual(withdrawalRows(page.body), []);
  assert.ok(page.body.includes('<label>Amount (USD) <input name="amount"'));
  assert.ok(page.body.includes('<button type="submit">Request withdrawal</button>'));

  const requested = await accountant.post('/console/finance/withdrawals', { amount: '120.50' });
  assert.equal(requested.statusCode, 303, requested.body);
  assert.equal(requested.headers.location, '/console/finance');
  const after = await accountant.get('/console/finance');
  const rows = withdrawalRows(after.body);
  assert.equal(rows.length, 1);
  assert.deepEqual(
    { amount: rows[0]?.amount, status: rows[0]?.status },
    { amount: '120.50', status: 'pending' },
  );

  const listed = json(await call(h, 'GET', '/api/v1/finance/withdrawals', { key: one.key })) as {
    withdrawals: Array<{ id: number; amount: number; status: string }>;
  };
  assert.deepEqual(
    listed.withdrawals.map(({ id, amount, status }) => ({ id, amount, status })),
    [{ id: rows[0]?.id, amount: 120.5, status: 'pending' }],
  );
});

test('Request withdrawal refuses as the CLI does, with the service’s message and status', async (t) => {
  const h = await buildHarness(t);
  const { one } = await givenCatalog(h);
  await importStatement(h.ctx, 'sales.csv', bytes(STATEMENT));
  const owner = await signedInAs(h, one.label.id, 'mira', 'owner');
  await owner.get('/console/finance');

  for (const [amount, message] of [
    ['49.99', '49.99 is under the minimum withdrawal of 50.00'],
    ['395.27', '395.27 is over the available balance of 395.26'],
    ['ten', 'amount &quot;ten&quot; is not a sum of dollars above zero with at most two decimals'],
  ] as const) {
    const refused = await owner.post('/console/finance/withdrawals', { amount });
    assert.equal(refused.statusCode, 400, amount);
    assert.ok(refused.body.includes(`<p class="error" role="alert">${message}</p>`), refused.body);
    assert.ok(refused.body.includes(`name="amount" inputmode="decimal" required value="${amount}"`));
    assert.deepEqual(withdrawalRows(refused.body), []);
  }

  assert.equal((await owner.post('/console/finance/withdrawals', { amount: '300' })).statusCode, 303);
  await owner.get('/console/finance');
  const second = await owner.post('/console/finance/withdrawals', { amount: '100' });
  assert.equal(second.statusCode, 400);
  assert.match(
    second.body,
    /100\.00 is over the available balance of 395\.26, of which 300\.00 is already requested/,
  );
});

test('Finance is for roles with finance.view: a viewer or a manager gets the 403 page, and no link', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  for (const role of ['viewer', 'manager']) {
    const browser = await signedInAs(h, label.id, role, role);
    const overview = await browser.get('/console');
    assert.doesNotMatch(overview.body, /href="\/console\/finance"/);
    const page = await browser.get('/console/finance');
    assert.equal(page.statusCode, 403, role);
    assert.match(page.body, /This page is not available to your role/);
    const post = await browser.post('/console/finance/withdrawals', { amount: '60' });
    assert.equal(post.statusCode, 403, role);
  }
});

test('before the first statement the page says so, and a withdrawal is over the balance', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const accountant = await signedInAs(h, label.id, 'ben', 'accountant');
  const page = await accountant.get('/console/finance');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /No royalty statement has reached this label yet/);
  assert.match(page.body, /<tbody><tr><td>0\.00<\/td><td>0\.00<\/td><td>0\.00<\/td><\/tr><\/tbody>/);
  const refused = await accountant.post('/console/finance/withdrawals', { amount: '50' });
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /50\.00 is over the available balance of 0\.00/);
});
