import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lockLabel } from '../../src/core/labels.ts';
import type { Workspace } from '../../src/db/scope.ts';
import type { EventKind } from '../../src/db/values.ts';

import { pruneExpiredEvents, publish } from '../../src/modules/events/events.service.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';

const NOW = '2026-03-02T10:00:00.000Z';

function live(labelId: number): Workspace {
  return { id: labelId, labelId, sandbox: false, catalogCopied: true };
}

async function publishMany(
  h: Harness,
  workspace: Workspace,
  events: Array<[EventKind, Record<string, unknown>]>,
) {
  const ids: number[] = [];
  for (const [event, data] of events) {
    ids.push((await h.ctx.db.transaction().execute((trx) => publish(trx, workspace, event, data, NOW))).id);
  }
  return ids;
}

test('an event exists if and only if the transaction that published it committed; ids increase', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const workspace = live(label.id);
  await assert.rejects(
    h.ctx.db.transaction().execute(async (trx) => {
      await publish(trx, workspace, 'webhook.test', { message: 'lost' }, NOW);
      throw new Error('the change failed');
    }),
    /the change failed/,
  );
  const ids = await publishMany(h, workspace, [
    ['webhook.test', { message: 'one' }],
    ['release.live', { release: { id: 7 }, upc: '036000291452' }],
  ]);
  assert.ok(ids[0] !== undefined && ids[1] !== undefined && ids[1] > ids[0]);
  const response = await call(h, 'GET', '/api/v1/events', { key });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.deepEqual(json(response), {
    events: [
      { id: ids[0], event: 'webhook.test', created_at: NOW, data: { message: 'one' } },
      {
        id: ids[1],
        event: 'release.live',
        created_at: NOW,
        data: { release: { id: 7 }, upc: '036000291452' },
      },
    ],
    next_after: ids[1],
    has_more: false,
  });
});

test('GET /events pages with after, limit (default 100, at most 200) and has_more; types filters', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const kinds: EventKind[] = ['release.dsp_status', 'release.live', 'webhook.test'];
  const ids = await publishMany(
    h,
    live(label.id),
    Array.from(
      { length: 250 },
      (_, i) => [kinds[i % 3] ?? 'webhook.test', { n: i }] as [EventKind, Record<string, unknown>],
    ),
  );
  const page = async (query: string) => {
    const response = await call(h, 'GET', `/api/v1/events${query}`, { key });
    assert.equal(response.statusCode, 200, query);
    return json(response) as {
      events: Array<{ id: number; event: string }>;
      next_after: number;
      has_more: boolean;
    };
  };
  let body = await page('');
  assert.deepEqual([body.events.length, body.next_after, body.has_more], [100, ids[99], true]);
  body = await page('?limit=1000');
  assert.deepEqual([body.events.length, body.next_after, body.has_more], [200, ids[199], true]);
  body = await page(`?after=${ids[199]}&limit=200`);
  assert.deepEqual([body.events.length, body.next_after, body.has_more], [50, ids[249], false]);
  body = await page(`?after=${ids[249]}`);
  assert.deepEqual(body, { events: [], next_after: ids[249], has_more: false });
  body = await page('?types=release.live,webhook.test&limit=5');
  assert.deepEqual(
    body.events.map((e) => e.event),
    ['release.live', 'webhook.test', 'release.live', 'webhook.test', 'release.live'],
  );
  for (const [query, field] of [
    ['?types=release.live,release.exploded', 'types'],
    ['?after=-1', 'after'],
    ['?limit=0', 'limit'],
    ['?after=abc', 'after'],
  ] as const) {
    const response = await call(h, 'GET', `/api/v1/events${query}`, { key });
    assert.equal(response.statusCode, 400, query);
    assert.equal((json(response) as { field: string }).field, field, query);
  }
});

test('the feed needs the Label plan or above: 403 plan_required on Start', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { plan: 'start', scopes: ['catalog:read'] });
  const response = await call(h, 'GET', '/api/v1/events', { key });
  assert.equal(response.statusCode, 403);
  assert.deepEqual(json(response), {
    error: 'This needs the Label plan or above',
    code: 'plan_required',
    required_plan: 'label',
  });
});

test('sandbox events carry sandbox: true; a test key sees only them and a live key never does', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  await call(h, 'GET', '/api/v1/me', { key: sandboxKey });
  const sandbox = await h.ctx.db
    .selectFrom('labels')
    .select('id')
    .where('parent_id', '=', label.id)
    .executeTakeFirstOrThrow();
  await publishMany(h, live(label.id), [['webhook.test', { message: 'live' }]]);
  await publishMany(h, { id: sandbox.id, labelId: label.id, sandbox: true, catalogCopied: true }, [
    ['release.live', { upc: '036000291452' }],
  ]);
  const seen = async (k: string) =>
    (
      json(await call(h, 'GET', '/api/v1/events', { key: k })) as { events: Array<{ data: unknown }> }
    ).events.map((e) => e.data);
  assert.deepEqual(await seen(key), [{ message: 'live' }]);
  assert.deepEqual(await seen(sandboxKey), [{ upc: '036000291452', sandbox: true }]);
  const other = await givenCaller(h);
  assert.deepEqual(await seen(other.key), [], "another label's events are not seen");
});

test('events older than 90 days are pruned', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  await publishMany(h, live(label.id), [['webhook.test', { message: 'old' }]]);
  h.clock.advance(89 * 24 * 3_600_000);
  assert.equal(await pruneExpiredEvents(h.ctx.db, h.ctx.clock), 0);
  h.clock.advance(2 * 24 * 3_600_000);
  assert.equal(await pruneExpiredEvents(h.ctx.db, h.ctx.clock), 1);
  assert.deepEqual(
    (json(await call(h, 'GET', '/api/v1/events', { key })) as { events: unknown[] }).events,
    [],
  );
});

test('a transaction holding the label row publishes while another publishes for the label: no deadlock', async (t) => {
  const h = await buildHarness(t);
  const { label } = await givenCaller(h);
  const workspace = live(label.id);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked = false;
  const holder = h.ctx.db.transaction().execute(async (trx) => {
    await lockLabel(trx, h.ctx.dialect, label.id);
    locked = true;
    await held;
    return publish(trx, workspace, 'webhook.test', { message: 'holder' }, NOW);
  });
  while (!locked) await new Promise((resolve) => setTimeout(resolve, 5));
  const other = h.ctx.db
    .transaction()
    .execute((trx) => publish(trx, workspace, 'webhook.test', { message: 'other' }, NOW));
  await new Promise((resolve) => setTimeout(resolve, 100));
  release();
  const [first, second] = await Promise.all([holder, other]);
  assert.ok(first.id < second.id, 'the holder, which took the label first, publishes first');
});
