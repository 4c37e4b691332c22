import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildHarness, call, givenCaller, type Harness, json } from '../../helpers/harness.ts';
import { givenLink, IPHONE, stats } from './link-pages.fixtures.ts';

/** A view from its own client address, so that the per-address limit stays out of the way. */
function viewFrom(h: Harness, path: string, client: string) {
  return call(h, 'GET', path, { headers: { 'user-agent': IPHONE }, remoteAddress: client });
}

async function linkCounters(h: Harness, linkId: number) {
  return h.ctx.db
    .selectFrom('smart_links')
    .select(['views', 'clicks'])
    .where('id', '=', linkId)
    .executeTakeFirstOrThrow();
}

async function labelDays(h: Harness, labelId: number) {
  return h.ctx.db
    .selectFrom('label_traffic_days')
    .select(['day', 'views', 'clicks'])
    .where('label_id', '=', labelId)
    .execute();
}

async function breakdownValues(h: Harness, table: 'smart_link_breakdowns' | 'label_traffic_breakdowns') {
  const rows = await h.ctx.db
    .selectFrom(table)
    .select(['value', 'count'])
    .where('dimension', '=', 'source')
    .execute();
  return new Map(rows.map((row) => [row.value, Number(row.count)]));
}

test('views and clicks are written by the timer within the interval, with the label rollup, without any read', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const link = await givenLink(h, key);
  assert.equal((await viewFrom(h, `/l/${link.code}?utm_source=news`, '10.0.0.1')).statusCode, 200);
  assert.equal((await viewFrom(h, `/l/${link.code}`, '10.0.0.2')).statusCode, 200);
  assert.equal((await viewFrom(h, `/l/${link.code}/go/spotify`, '10.0.0.2')).statusCode, 302);
  assert.deepEqual(await linkCounters(h, link.id), { views: 0, clicks: 0 });

  await sleep(600);
  assert.deepEqual(await linkCounters(h, link.id), { views: 2, clicks: 1 });
  assert.deepEqual(
    (await labelDays(h, label.id)).map((row) => ({
      ...row,
      views: Number(row.views),
      clicks: Number(row.clicks),
    })),
    [{ day: '2026-03-02', views: 2, clicks: 1 }],
  );
  assert.deepEqual(
    await breakdownValues(h, 'label_traffic_breakdowns'),
    new Map([
      ['direct', 1],
      ['news', 1],
    ]),
  );
});

test('a view is in the statistics, the link and the analytics read right after it', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  await viewFrom(h, `/l/${link.code}`, '10.0.0.1');
  assert.equal((await stats(h, key, link.id)).totals.views, 1);

  await viewFrom(h, `/l/${link.code}`, '10.0.0.2');
  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as {
    smart_link: { views: number };
  };
  assert.equal(read.smart_link.views, 2);

  await viewFrom(h, `/l/${link.code}`, '10.0.0.3');
  const list = json(await call(h, 'GET', '/api/v1/smart-links', { key })) as {
    smart_links: { views: number }[];
  };
  assert.deepEqual(
    list.smart_links.map((item) => item.views),
    [3],
  );

  await viewFrom(h, `/l/${link.code}`, '10.0.0.4');
  const summary = json(await call(h, 'GET', '/api/v1/analytics/summary', { key })) as {
    smart_links: { views: number };
  };
  assert.equal(summary.smart_links.views, 4);
});

test('a day keeps 100 sources per link and per label: the 101st counts as other, against what is stored', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const first = await givenLink(h, key);
  const second = await givenLink(h, key, { title: 'Second' });
  for (let i = 0; i < 99; i++) await viewFrom(h, `/l/${first.code}?utm_source=s${i}`, `10.0.1.${i}`);
  await viewFrom(h, `/l/${first.code}`, '10.0.2.1');
  // Written: 100 sources, 'direct' among them; what comes next is checked against the stored ones.
  assert.equal((await stats(h, key, first.id)).totals.views, 100);

  await viewFrom(h, `/l/${first.code}?utm_source=late`, '10.0.2.2');
  await viewFrom(h, `/l/${first.code}?utm_source=later`, '10.0.2.3');
  await viewFrom(h, `/l/${first.code}?utm_source=s5`, '10.0.2.4');
  await viewFrom(h, `/l/${second.code}?utm_source=fresh`, '10.0.2.5');
  const firstStats = (await stats(h, key, first.id)) as unknown as {
    sources: { source: string; views: number }[];
  };
  assert.equal(firstStats.sources.length, 101);
  assert.deepEqual(firstStats.sources.slice(0, 2), [
    { source: 'other', views: 2 },
    { source: 's5', views: 2 },
  ]);
  const secondStats = (await stats(h, key, second.id)) as unknown as { sources: unknown };
  assert.deepEqual(secondStats.sources, [{ source: 'fresh', views: 1 }]);

  // The label already had 100 sources that day: the second link's new one is `other` in the rollup.
  const rollup = await breakdownValues(h, 'label_traffic_breakdowns');
  assert.equal(rollup.size, 101);
  assert.equal(rollup.get('other'), 3);
  assert.equal(rollup.get('fresh'), undefined);
  const sum = (values: Map<string, number>) => [...values.values()].reduce((a, b) => a + b, 0);
  assert.equal(sum(rollup), sum(await breakdownValues(h, 'smart_link_breakdowns')));
});

test('the 31st view in a minute from one address gets the page but is not counted; a minute later it counts again', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  const statuses = [];
  for (let i = 0; i < 31; i++) statuses.push((await viewFrom(h, `/l/${link.code}`, '10.0.0.9')).statusCode);
  assert.deepEqual(statuses, Array<number>(31).fill(200));
  assert.equal((await viewFrom(h, `/l/${link.code}`, '10.0.0.10')).statusCode, 200);
  assert.equal((await stats(h, key, link.id)).totals.views, 31);

  h.clock.advance(60_000);
  await viewFrom(h, `/l/${link.code}`, '10.0.0.9');
  assert.equal((await stats(h, key, link.id)).totals.views, 32);
});

test('a failed write keeps the counts in memory: they are written once the database takes them again', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const link = await givenLink(h, key);
  await viewFrom(h, `/l/${link.code}?utm_source=news`, '10.0.0.1');
  await viewFrom(h, `/l/${link.code}/go/spotify`, '10.0.0.1');
  await sql`alter table label_traffic_days rename to label_traffic_days_away`.execute(h.ctx.db);
  t.diagnostic('a LabeldeskCounts warning follows: the write is meant to fail');
  assert.equal((await call(h, 'GET', `/api/v1/smart-links/${link.id}/stats`, { key })).statusCode, 500);
  await viewFrom(h, `/l/${link.code}`, '10.0.0.2');
  assert.deepEqual(await linkCounters(h, link.id), { views: 0, clicks: 0 });

  await sql`alter table label_traffic_days_away rename to label_traffic_days`.execute(h.ctx.db);
  const result = await stats(h, key, link.id);
  assert.deepEqual(result.totals, { views: 2, clicks: 1, rate_percent: 50, presaves: 0 });
  assert.deepEqual(result.sources, [
    { source: 'direct', views: 1 },
    { source: 'news', views: 1 },
  ]);
  assert.deepEqual(
    (await labelDays(h, label.id)).map((row) => [Number(row.views), Number(row.clicks)]),
    [[2, 1]],
  );
});

test('counts of a link removed before the write are dropped, and the others written', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const gone = await givenLink(h, key);
  const kept = await givenLink(h, key, { title: 'Kept' });
  await viewFrom(h, `/l/${gone.code}`, '10.0.0.1');
  await viewFrom(h, `/l/${kept.code}`, '10.0.0.1');
  await h.ctx.db.deleteFrom('smart_link_targets').where('link_id', '=', gone.id).execute();
  await h.ctx.db.deleteFrom('smart_links').where('id', '=', gone.id).execute();
  assert.equal((await stats(h, key, kept.id)).totals.views, 1);
});
