import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importStatement } from '../../../src/modules/finance/royalty-import.service.ts';
import { createWithdrawal, moveWithdrawal } from '../../../src/modules/finance/withdrawals.service.ts';
import { buildHarness, givenKey } from '../../helpers/harness.ts';
import { bytes, givenCatalog, read, STATEMENT, UPC_ONE } from './fixtures.ts';

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
