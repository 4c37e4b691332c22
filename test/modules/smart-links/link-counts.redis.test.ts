import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { Redis } from 'ioredis';
import { RedisCounts } from '../../../src/modules/smart-links/link-counts.redis.ts';
import {
  ABANDONED_AFTER_MS,
  linkCountsOf,
  writeTaken,
} from '../../../src/modules/smart-links/link-counts.ts';
import { countingNamespace } from '../../../src/modules/smart-links/link-stats.store.ts';
import { Tally } from '../../../src/modules/smart-links/link-tally.ts';
import {
  buildHarness,
  call,
  givenCaller,
  type Harness,
  ManualClock,
  TEST_REDIS_URL,
} from '../../helpers/harness.ts';
import { givenLink, IPHONE, stats } from './link-pages.fixtures.ts';

/*
 * Two app instances on one database and one Redis (REDIS_URL), as two processes behind a load
 * balancer: they share the per-client limit and their counts, and write them once.
 */

const skip = TEST_REDIS_URL === null && 'TEST_REDIS_URL is not set';

function redisUrl(): string {
  if (TEST_REDIS_URL === null) throw new Error('TEST_REDIS_URL is not set');
  return TEST_REDIS_URL;
}

async function twoInstances(t: TestContext): Promise<[Harness, Harness]> {
  const env = { REDIS_URL: redisUrl() };
  const clock = new ManualClock();
  const instances: Harness[] = [];
  // Registered first, so run first: both close (writing what they counted) before the database goes.
  t.after(async () => {
    for (const h of instances) await h.app.close();
  });
  const first = await buildHarness(t, { env, clock });
  const second = await buildHarness(t, { env, clock, database: first.database });
  instances.push(second, first);
  return [first, second];
}

function viewFrom(h: Harness, path: string, client: string) {
  return call(h, 'GET', path, { headers: { 'user-agent': IPHONE }, remoteAddress: client });
}

/** This database's counting keys in Redis, besides the per-client limit's. */
async function countingKeys(h: Harness): Promise<string[]> {
  const redis = new Redis(redisUrl());
  try {
    const keys = await redis.keys(`labeldesk:counts:${await countingNamespace(h.ctx.db)}:*`);
    return keys.filter((key) => !key.includes(':client:')).sort();
  } finally {
    redis.disconnect();
  }
}

async function storedViews(h: Harness, linkId: number): Promise<{ link: number; rollup: number }> {
  const link = await h.ctx.db
    .selectFrom('smart_links')
    .select('views')
    .where('id', '=', linkId)
    .executeTakeFirstOrThrow();
  const rollup = await h.ctx.db
    .selectFrom('label_traffic_days')
    .select((eb) => eb.fn.sum<number>('views').as('views'))
    .executeTakeFirstOrThrow();
  return { link: Number(link.views), rollup: Number(rollup.views) };
}

test('two instances count views and clicks of one link: the statistics hold each one, breakdowns too', {
  skip,
}, async (t) => {
  const [a, b] = await twoInstances(t);
  const { key } = await givenCaller(a);
  const link = await givenLink(a, key);
  for (let i = 0; i < 6; i++) await viewFrom(a, `/l/${link.code}?utm_source=news`, `10.0.1.${i}`);
  for (let i = 0; i < 4; i++) await viewFrom(b, `/l/${link.code}`, `10.0.2.${i}`);
  await viewFrom(a, `/l/${link.code}/go/spotify`, '10.0.1.1');
  await viewFrom(b, `/l/${link.code}/go/apple_music`, '10.0.2.1');
  await viewFrom(b, `/l/${link.code}/go/spotify`, '10.0.2.2');

  // B's counts reach the database through Redis when A reads (or within an interval).
  await linkCountsOf(b.ctx).flushAll();
  const result = await stats(a, key, link.id);
  assert.deepEqual(result.totals, { views: 10, clicks: 3, rate_percent: 30, presaves: 0 });
  assert.deepEqual(result.sources, [
    { source: 'news', views: 6 },
    { source: 'direct', views: 4 },
  ]);
  assert.deepEqual(result.devices, [{ device: 'mobile', views: 10 }]);
  assert.deepEqual(
    (result.platforms as { platform: string; clicks: number }[]).map(({ platform, clicks }) => [
      platform,
      clicks,
    ]),
    [
      ['spotify', 2],
      ['apple_music', 1],
    ],
  );
  assert.deepEqual(await stats(b, key, link.id), result);
  assert.deepEqual(await storedViews(a, link.id), { link: 10, rollup: 10 });
});

test('the per-client limit is one budget: 20 views from one address on each instance count 30', {
  skip,
}, async (t) => {
  const [a, b] = await twoInstances(t);
  const { key } = await givenCaller(a);
  const link = await givenLink(a, key);
  for (let i = 0; i < 20; i++) {
    assert.equal((await viewFrom(a, `/l/${link.code}`, '10.0.0.9')).statusCode, 200);
    assert.equal((await viewFrom(b, `/l/${link.code}`, '10.0.0.9')).statusCode, 200);
  }
  await linkCountsOf(a.ctx).flushAll();
  await linkCountsOf(b.ctx).flushAll();
  assert.equal((await stats(a, key, link.id)).totals.views, 30);
});

test('a view read right after on the same instance is in the statistics', { skip }, async (t) => {
  const [a] = await twoInstances(t);
  const { key } = await givenCaller(a);
  const link = await givenLink(a, key);
  await viewFrom(a, `/l/${link.code}`, '10.0.0.1');
  assert.equal((await stats(a, key, link.id)).totals.views, 1);
  await viewFrom(a, `/l/${link.code}`, '10.0.0.2');
  assert.equal((await stats(a, key, link.id)).totals.views, 2);
});

test('closing the instances leaves nothing pending in Redis and every count in the database', {
  skip,
}, async (t) => {
  const [a, b] = await twoInstances(t);
  const { label, key } = await givenCaller(a);
  const link = { ...(await givenLink(a, key)), label_id: label.id };
  for (let i = 0; i < 5; i++) await viewFrom(a, `/l/${link.code}`, `10.0.1.${i}`);
  for (let i = 0; i < 7; i++) await viewFrom(b, `/l/${link.code}`, `10.0.2.${i}`);
  // Counts of B that reached Redis but that no one took yet.
  await linkCountsOf(b.ctx).shared?.add([{ labelId: link.label_id, rows: oneView(link, 'late').rows() }]);

  await a.app.close();
  await b.app.close();
  assert.deepEqual(await countingKeys(a), []);
  assert.deepEqual(await storedViews(a, link.id), { link: 13, rollup: 13 });
});

function oneView(link: { id: number; label_id: number }, source: string): Tally {
  const tally = new Tally();
  tally.addView(link, '2026-03-02', [{ dimension: 'source', value: source }]);
  return tally;
}

test('a batch whose taker died is applied once by another instance, and a token applied twice counts once', {
  skip,
}, async (t) => {
  const [a, b] = await twoInstances(t);
  const { label, key } = await givenCaller(a);
  const link = { ...(await givenLink(a, key)), label_id: label.id };
  const taker = new RedisCounts(redisUrl(), a.ctx.db);
  await taker.add([{ labelId: link.label_id, rows: oneView(link, 'lost').rows() }]);
  const taken = await taker.take([link.label_id], a.clock.now().getTime());
  assert.equal(taken.length, 1);
  // The taker dies: its batch is neither written nor deleted.
  await taker.close();

  await linkCountsOf(b.ctx).recoverAbandoned();
  assert.equal((await stats(b, key, link.id)).totals.views, 0, 'a batch taken a moment ago is not abandoned');

  a.clock.advance(ABANDONED_AFTER_MS + 1_000);
  await linkCountsOf(b.ctx).recoverAbandoned();
  await linkCountsOf(a.ctx).recoverAbandoned();
  const result = await stats(b, key, link.id);
  assert.equal(result.totals.views, 1);
  assert.deepEqual(result.sources, [{ source: 'lost', views: 1 }]);
  assert.deepEqual(await countingKeys(a), []);

  await writeTaken(a.ctx, taken);
  assert.deepEqual(await storedViews(a, link.id), { link: 1, rollup: 1 });
});

test('with Redis away, views count without the limit, statistics read them, and closing writes the rest', async (t) => {
  // Nothing listens on port 1: each call to Redis fails once the client gives up reconnecting.
  const h = await buildHarness(t, { env: { REDIS_URL: 'redis://127.0.0.1:1' } });
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  t.diagnostic('LabeldeskCounts warnings follow: Redis is meant to be away');
  for (let i = 0; i < 3; i++)
    assert.equal((await viewFrom(h, `/l/${link.code}`, '10.0.0.1')).statusCode, 200);
  assert.equal((await stats(h, key, link.id)).totals.views, 3, 'the read wrote them to the database itself');
  assert.equal((await viewFrom(h, `/l/${link.code}`, '10.0.0.1')).statusCode, 200);
  await h.app.close();
  assert.deepEqual(await storedViews(h, link.id), { link: 4, rollup: 4 });
});
