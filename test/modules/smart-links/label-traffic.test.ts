import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { resetSandbox } from '../../../src/modules/sandbox/sandbox.service.ts';
import {
  buildHarness,
  call,
  givenCaller,
  givenKey,
  type Harness,
  json,
  ManualClock,
  openTestDatabase,
} from '../../helpers/harness.ts';
import { givenLink, type Link, open } from './link-pages.fixtures.ts';

const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const DAY_MS = 86_400_000;

interface Summary {
  smart_links: Record<string, number>;
  daily: { date: string; views: number; clicks: number }[];
  top_links: { id: number; title: string; views: number; clicks: number }[];
}

async function analytics<T>(h: Harness, key: string, path: string): Promise<T> {
  const response = await call(h, 'GET', `/api/v1/analytics/${path}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as T;
}

const signUp = (h: Harness, link: Link, email: string) =>
  call(h, 'POST', `/l/${link.code}/presave`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `email=${encodeURIComponent(email)}`,
  });

/** The label's rollup rows, and the same sums made from its links' own rows: they must be equal. */
async function rollupAndLinkSums(db: Db, labelId: number) {
  const rollupDays = await db
    .selectFrom('label_traffic_days')
    .select(['day', 'views', 'clicks', 'presaves'])
    .where('label_id', '=', labelId)
    .orderBy('day')
    .execute();
  const linkDays = await sql<{ day: string; views: number; clicks: number; presaves: number }>`
    select day, sum(views) as views, sum(clicks) as clicks, sum(presaves) as presaves from (
      select day, views, clicks, 0 as presaves from smart_link_days where label_id = ${labelId}
      union all
      select substr(created_at, 1, 10), 0, 0, 1 from smart_link_presaves where label_id = ${labelId}
    ) as counted group by day order by day
  `.execute(db);
  const rollupBreakdowns = await db
    .selectFrom('label_traffic_breakdowns')
    .select(['day', 'dimension', 'value', 'count'])
    .where('label_id', '=', labelId)
    .orderBy('day')
    .orderBy('dimension')
    .orderBy('value')
    .execute();
  const linkBreakdowns = await db
    .selectFrom('smart_link_breakdowns')
    .select(['day', 'dimension', 'value', (eb) => eb.fn.sum<number>('count').as('count')])
    .where('label_id', '=', labelId)
    .groupBy(['day', 'dimension', 'value'])
    .orderBy('day')
    .orderBy('dimension')
    .orderBy('value')
    .execute();
  const numbers = <R extends object>(rows: R[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
      ),
    );
  return {
    rollup: { days: numbers(rollupDays), breakdowns: numbers(rollupBreakdowns) },
    links: { days: numbers(linkDays.rows), breakdowns: numbers(linkBreakdowns) },
  };
}

test("label analytics count what each link had within the period: an older link's days in it, a newer link's all", async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const older = await givenLink(h, key, { title: 'Older', release_date: '2026-06-01' });
  await open(h, `/l/${older.code}?utm_source=newsletter`);
  await open(h, `/l/${older.code}`);
  await open(h, `/l/${older.code}/go/spotify`);
  assert.equal((await signUp(h, older, 'early@example.com')).statusCode, 200);

  h.clock.advance(5 * DAY_MS);
  await open(h, `/l/${older.code}`, { 'user-agent': WINDOWS, 'accept-language': 'de' });
  await open(h, `/l/${older.code}/go/spotify`);
  assert.equal((await signUp(h, older, 'later@example.com')).statusCode, 200);
  const newer = await givenLink(h, key, { title: 'Newer' });
  await open(h, `/l/${newer.code}`, { 'accept-language': 'es' });
  await open(h, `/l/${newer.code}`, { 'accept-language': 'es' });
  h.clock.advance(DAY_MS);

  const recent = await analytics<Summary>(h, key, 'summary?days=3');
  assert.deepEqual(recent.smart_links, { total: 2, views: 3, clicks: 1, presaves: 1, rate_percent: 33.3 });
  assert.deepEqual(recent.daily, [
    { date: '2026-03-06', views: 0, clicks: 0 },
    { date: '2026-03-07', views: 3, clicks: 1 },
    { date: '2026-03-08', views: 0, clicks: 0 },
  ]);
  assert.deepEqual(recent.top_links, [
    { id: newer.id, title: 'Newer', views: 2, clicks: 0 },
    { id: older.id, title: 'Older', views: 1, clicks: 1 },
  ]);
  const month = await analytics<Summary>(h, key, 'summary?days=30');
  assert.deepEqual(month.smart_links, { total: 2, views: 5, clicks: 2, presaves: 2, rate_percent: 40 });
  assert.deepEqual(month.top_links, [
    { id: older.id, title: 'Older', views: 3, clicks: 2 },
    { id: newer.id, title: 'Newer', views: 2, clicks: 0 },
  ]);

  assert.deepEqual(
    { ...(await analytics<Record<string, unknown>>(h, key, 'traffic?days=3')), hours_utc: undefined },
    {
      period_days: 3,
      sources: [{ source: 'direct', views: 3 }],
      devices: [
        { device: 'mobile', views: 2 },
        { device: 'desktop', views: 1 },
      ],
      languages: [
        { language: 'es', views: 2 },
        { language: 'de', views: 1 },
      ],
      hours_utc: undefined,
      top_links: [
        { id: newer.id, title: 'Newer', views: 2 },
        { id: older.id, title: 'Older', views: 1 },
      ],
    },
  );
  const sums = await rollupAndLinkSums(h.ctx.db, label.id);
  assert.deepEqual(sums.rollup, sums.links);
  assert.equal(sums.rollup.days.length, 2, 'one row per day for the label, whatever the links');
});

test('a sandbox reset takes the traffic of the links it removes out of the sandbox analytics', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const link = await givenLink(h, sandboxKey);
  await open(h, `/l/${link.code}`);
  await open(h, `/l/${link.code}/go/spotify`);
  const live = await givenLink(h, key);
  await open(h, `/l/${live.code}`);
  assert.equal((await analytics<Summary>(h, sandboxKey, 'summary')).smart_links.views, 1);

  await resetSandbox(h.ctx, label.id);

  const summary = await analytics<Summary>(h, sandboxKey, 'summary');
  assert.deepEqual(summary.smart_links, { total: 0, views: 0, clicks: 0, presaves: 0, rate_percent: 0 });
  assert.deepEqual(summary.top_links, []);
  const traffic = await analytics<{ sources: unknown[] }>(h, sandboxKey, 'traffic');
  assert.deepEqual(traffic.sources, []);
  assert.equal((await analytics<Summary>(h, key, 'summary')).smart_links.views, 1);
});

/**
 * A link as `POST /smart-links` wrote it before migration 0014, written as a row: the API of today
 * needs the later migrations on its request path (a key's last use, from 0019).
 */
async function givenLinkBefore0014(db: Db, labelId: number, title: string): Promise<{ id: number }> {
  const at = '2026-02-28T10:00:00.000Z';
  return db
    .insertInto('smart_links')
    .values({
      label_id: labelId,
      code: `Link${title}00`,
      slug: null,
      title,
      artist_name: 'Mira Vale',
      search_key: `${title} mira vale`.toLowerCase(),
      release_date: '2026-02-20',
      release_id: null,
      enabled: 1,
      theme: 'auto',
      accent: null,
      cta_text: null,
      hide_branding: 0,
      collecting_since: at,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** Counters as a link's page left them before migration 0014: the link's, its days', breakdowns' and pre-saves'. */
async function givenCountedBefore0014(
  db: Db,
  link: { id: number; label_id: number },
  days: { day: string; views: number; clicks: number; sources: Record<string, number> }[],
  presaveDays: string[],
) {
  for (const { day, views, clicks, sources } of days) {
    await db
      .insertInto('smart_link_days')
      .values({ link_id: link.id, label_id: link.label_id, day, views, clicks })
      .execute();
    await db
      .insertInto('smart_link_breakdowns')
      .values(
        Object.entries(sources).map(([value, count]) => ({
          link_id: link.id,
          label_id: link.label_id,
          day,
          dimension: 'source' as const,
          value,
          count,
        })),
      )
      .execute();
    await db
      .updateTable('smart_links')
      .set((eb) => ({ views: eb('views', '+', views), clicks: eb('clicks', '+', clicks) }))
      .where('id', '=', link.id)
      .execute();
  }
  for (const [i, day] of presaveDays.entries()) {
    await db
      .insertInto('smart_link_presaves')
      .values({
        link_id: link.id,
        label_id: link.label_id,
        email_digest: `digest-${link.id}-${i}`,
        email_sealed: 'sealed',
        created_at: `${day}T12:00:00.000Z`,
      })
      .execute();
  }
}

test("migration 0014 fills the label rollups with the sums of the links' counters, label by label", async (t) => {
  const database = await openTestDatabase(t, '0013_media_locks');
  const h = await buildHarness(t, { database, clock: new ManualClock('2026-02-28T10:00:00.000Z') });
  const first = await givenCaller(h);
  const second = await givenCaller(h);
  const a = await givenLinkBefore0014(h.ctx.db, first.label.id, 'A');
  const b = await givenLinkBefore0014(h.ctx.db, first.label.id, 'B');
  const c = await givenLinkBefore0014(h.ctx.db, second.label.id, 'C');
  await givenCountedBefore0014(
    h.ctx.db,
    { id: a.id, label_id: first.label.id },
    [
      { day: '2026-03-01', views: 5, clicks: 2, sources: { direct: 3, 'tiktok.com': 2 } },
      { day: '2026-03-02', views: 4, clicks: 1, sources: { direct: 4 } },
    ],
    ['2026-03-01', '2026-03-02'],
  );
  await givenCountedBefore0014(
    h.ctx.db,
    { id: b.id, label_id: first.label.id },
    [{ day: '2026-03-02', views: 7, clicks: 3, sources: { direct: 1, 'tiktok.com': 6 } }],
    ['2026-03-02'],
  );
  await givenCountedBefore0014(
    h.ctx.db,
    { id: c.id, label_id: second.label.id },
    [{ day: '2026-03-02', views: 100, clicks: 50, sources: { direct: 100 } }],
    [],
  );

  assert.deepEqual(await migrateToLatest(database.db, database.dialect), [
    '0014_label_traffic',
    '0015_link_page_versions',
    '0016_label_traffic_counts',
    '0017_link_count_batches',
    '0018_console_sign_in',
    '0019_key_use_and_attempt_event',
    '0020_takedown_platforms',
    '0021_track_audio_analysis',
    '0022_webhook_recovery',
  ]);
  h.clock.advance(2 * DAY_MS);

  for (const { label } of [first, second]) {
    const sums = await rollupAndLinkSums(h.ctx.db, label.id);
    assert.deepEqual(sums.rollup, sums.links);
  }
  const summary = await analytics<Summary>(h, first.key, 'summary?days=2');
  assert.deepEqual(summary.smart_links, { total: 2, views: 16, clicks: 6, presaves: 3, rate_percent: 37.5 });
  assert.deepEqual(summary.daily, [
    { date: '2026-03-01', views: 5, clicks: 2 },
    { date: '2026-03-02', views: 11, clicks: 4 },
  ]);
  assert.deepEqual(summary.top_links, [
    { id: a.id, title: 'A', views: 9, clicks: 3 },
    { id: b.id, title: 'B', views: 7, clicks: 3 },
  ]);
  const traffic = await analytics<{ sources: unknown }>(h, first.key, 'traffic?days=2');
  assert.deepEqual(traffic.sources, [
    { source: 'direct', views: 8 },
    { source: 'tiktok.com', views: 8 },
  ]);
});
