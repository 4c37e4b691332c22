import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease } from '../../helpers/catalog.ts';
import { buildHarness, call, givenCaller, json } from '../../helpers/harness.ts';
import { givenLink, type Link, open, SPOTIFY_URL, stats } from './link-pages.fixtures.ts';

const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const PREVIEW_FETCHERS = [
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Twitterbot/1.0',
  'WhatsApp/2.23.20.0',
  'TelegramBot (like TwitterBot)',
  'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
];

test('a view is counted for a person, with day, hour, source, device and language; not for bots, previews, prefetches or HEAD', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  const path = `/l/${link.code}`;

  for (const agent of PREVIEW_FETCHERS)
    assert.equal((await open(h, path, { 'user-agent': agent })).statusCode, 200);
  assert.equal((await open(h, path, { 'sec-purpose': 'prefetch;prerender' })).statusCode, 200);
  assert.equal((await open(h, path, { purpose: 'prefetch' })).statusCode, 200);
  assert.equal((await open(h, path, {}, 'HEAD')).statusCode, 200);
  assert.equal((await stats(h, key, link.id)).totals.views, 0);

  await open(h, `${path}?utm_source=Instagram`, {
    'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8',
    referer: 'https://t.co/x',
  });
  await open(h, path, {
    'user-agent': WINDOWS,
    'accept-language': 'en-US,en;q=0.9',
    referer: 'https://www.google.com/',
  });
  h.clock.advance(3 * 3_600_000);
  await open(h, path, { 'user-agent': IPAD, referer: 'https://www.google.com/search?q=mira' });
  await open(h, path, { 'user-agent': WINDOWS, 'accept-language': 'de' });

  const result = await stats(h, key, link.id);
  assert.deepEqual(result, {
    totals: { views: 4, clicks: 0, rate_percent: 0, presaves: 0 },
    collecting_since: '2026-03-02T10:00:00.000Z',
    days: [{ date: '2026-03-02', views: 4, clicks: 0 }],
    platforms: [],
    sources: [
      { source: 'google.com', views: 2 },
      { source: 'direct', views: 1 },
      { source: 'instagram', views: 1 },
    ],
    devices: [
      { device: 'desktop', views: 2 },
      { device: 'mobile', views: 1 },
      { device: 'tablet', views: 1 },
    ],
    languages: [
      { language: 'de', views: 1 },
      { language: 'en', views: 1 },
      { language: 'fr', views: 1 },
      { language: 'unknown', views: 1 },
    ],
  });
  const traffic = json(await call(h, 'GET', '/api/v1/analytics/traffic?days=1', { key })) as {
    hours_utc: { hour: number; views: number }[];
  };
  assert.deepEqual(
    traffic.hours_utc.filter((hour) => hour.views > 0),
    [
      { hour: 10, views: 2 },
      { hour: 13, views: 2 },
    ],
  );
  const rows = await h.ctx.db.selectFrom('smart_link_breakdowns').selectAll().execute();
  assert.ok(
    rows.every((row) => !/\d+\.\d+\.\d+\.\d+/.test(row.value)),
    'no address is stored',
  );
});

test('a click goes through our redirect: 302 to the target, counted on the link, the target, the day and the platform', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  for (let i = 0; i < 3; i += 1) await open(h, `/l/${link.code}`);

  const go = await open(h, `/l/${link.code}/go/spotify`);
  assert.equal(go.statusCode, 302);
  assert.equal(go.headers.location, SPOTIFY_URL);
  assert.equal(
    (await open(h, `/l/${link.code}/go/spotify`, { 'user-agent': PREVIEW_FETCHERS[0] ?? '' })).statusCode,
    302,
  );
  assert.equal((await open(h, `/l/${link.code}/go/spotify`, {}, 'HEAD')).statusCode, 302);

  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as { smart_link: Link };
  assert.deepEqual(
    [read.smart_link.views, read.smart_link.clicks, read.smart_link.targets.map((target) => target.clicks)],
    [3, 1, [1, 0]],
  );
  const result = await stats(h, key, link.id);
  assert.deepEqual(result.totals, { views: 3, clicks: 1, rate_percent: 33.3, presaves: 0 });
  assert.deepEqual(result.platforms, [
    { platform: 'spotify', title: 'Spotify', clicks: 1, share_percent: 100 },
  ]);
});

test('statistics: days from collecting_since to today with zeros, platform shares to one decimal, totals since creation', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, {
    targets: [
      { platform: 'spotify', url: SPOTIFY_URL },
      { platform: 'apple_music', url: 'https://music.apple.com/album/1' },
      { platform: 'deezer', url: 'https://www.deezer.com/album/1' },
    ],
  });
  await open(h, `/l/${link.code}`);
  for (const platform of ['spotify', 'apple_music', 'deezer'])
    await open(h, `/l/${link.code}/go/${platform}`);
  h.clock.advance(2 * 86_400_000);
  await open(h, `/l/${link.code}/go/spotify`);
  await open(h, `/l/${link.code}/go/spotify`);

  const result = await stats(h, key, link.id);
  assert.deepEqual(result.totals, { views: 1, clicks: 5, rate_percent: 500, presaves: 0 });
  assert.deepEqual(result.days, [
    { date: '2026-03-02', views: 1, clicks: 3 },
    { date: '2026-03-03', views: 0, clicks: 0 },
    { date: '2026-03-04', views: 0, clicks: 2 },
  ]);
  assert.deepEqual(result.platforms, [
    { platform: 'spotify', title: 'Spotify', clicks: 3, share_percent: 60 },
    { platform: 'apple_music', title: 'Apple Music', clicks: 1, share_percent: 20 },
    { platform: 'deezer', title: 'Deezer', clicks: 1, share_percent: 20 },
  ]);

  // A removed target keeps its clicks in the statistics; the link's totals never go back.
  await call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, {
    key,
    payload: { targets: [{ platform: 'spotify', url: SPOTIFY_URL }] },
  });
  const after = await stats(h, key, link.id);
  assert.deepEqual(after.totals, result.totals);
  assert.deepEqual(after.platforms, result.platforms);
});

test('GET /analytics/summary and /analytics/traffic: the period in days (default 30, 1-365)', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  await givenRelease(h, label.id, { status: 'live', artist_id: artist.id });
  await givenRelease(h, label.id, { artist_id: artist.id, title: 'Second' });
  const old = await givenLink(h, key, { title: 'Old single', release_date: '2026-06-01' });
  await open(h, `/l/${old.code}?utm_source=newsletter`);
  await open(h, `/l/${old.code}/go/spotify`);
  await call(h, 'POST', `/l/${old.code}/presave`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=early%40example.com',
  });
  h.clock.advance(10 * 86_400_000);
  const fresh = await givenLink(h, key, { title: 'New single' });
  for (let i = 0; i < 3; i += 1)
    await open(h, `/l/${fresh.code}`, { 'user-agent': WINDOWS, 'accept-language': 'es' });

  const summary = async (query: string) => {
    const response = await call(h, 'GET', `/api/v1/analytics/summary${query}`, { key });
    assert.equal(response.statusCode, 200, response.body);
    return json(response) as Record<string, unknown> & { daily: unknown[] };
  };
  const month = await summary('');
  assert.equal(month.period_days, 30);
  assert.equal(month.daily.length, 30);
  assert.deepEqual(month.releases, {
    total: 2,
    by_status: { draft: 1, submitting: 0, submitted: 0, live: 1, failed: 0, takedown: 0 },
  });
  assert.deepEqual(month.smart_links, { total: 2, views: 4, clicks: 1, presaves: 1, rate_percent: 25 });
  assert.deepEqual(month.top_links, [
    { id: fresh.id, title: 'New single', views: 3, clicks: 0 },
    { id: old.id, title: 'Old single', views: 1, clicks: 1 },
  ]);
  assert.deepEqual(month.daily.at(-1), { date: '2026-03-12', views: 3, clicks: 0 });
  assert.deepEqual(month.daily.at(-11), { date: '2026-03-02', views: 1, clicks: 1 });

  const week = await summary('?days=7');
  assert.deepEqual(week.smart_links, { total: 2, views: 3, clicks: 0, presaves: 0, rate_percent: 0 });
  assert.equal(week.daily.length, 7);
  assert.deepEqual(week.top_links, [{ id: fresh.id, title: 'New single', views: 3, clicks: 0 }]);

  const traffic = json(await call(h, 'GET', '/api/v1/analytics/traffic?days=7', { key })) as Record<
    string,
    unknown
  >;
  assert.deepEqual(
    { ...traffic, hours_utc: undefined },
    {
      period_days: 7,
      sources: [{ source: 'direct', views: 3 }],
      devices: [{ device: 'desktop', views: 3 }],
      languages: [{ language: 'es', views: 3 }],
      hours_utc: undefined,
      top_links: [{ id: fresh.id, title: 'New single', views: 3 }],
    },
  );
  const allTraffic = json(await call(h, 'GET', '/api/v1/analytics/traffic', { key })) as {
    sources: unknown;
    hours_utc: unknown[];
  };
  assert.deepEqual(allTraffic.sources, [
    { source: 'direct', views: 3 },
    { source: 'newsletter', views: 1 },
  ]);
  assert.equal(allTraffic.hours_utc.length, 24);

  for (const days of ['0', '366', 'week']) {
    for (const path of ['summary', 'traffic']) {
      const response = await call(h, 'GET', `/api/v1/analytics/${path}?days=${days}`, { key });
      assert.equal(response.statusCode, 400, `${path} ${days}`);
      assert.deepEqual((json(response) as { code: string; field: string }).field, 'days');
    }
  }
  const other = await givenCaller(h);
  const empty = json(
    await call(h, 'GET', '/api/v1/analytics/summary?days=365', { key: other.key }),
  ) as Record<string, unknown>;
  assert.deepEqual(empty.smart_links, { total: 0, views: 0, clicks: 0, presaves: 0, rate_percent: 0 });
  assert.deepEqual(empty.top_links, []);
});

test('views and clicks arriving at once are each counted on the link, its day, its breakdowns and the target', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  const answers = await Promise.all([
    ...Array.from({ length: 20 }, () => open(h, `/l/${link.code}`)),
    ...Array.from({ length: 10 }, () => open(h, `/l/${link.code}/go/spotify`)),
  ]);
  assert.deepEqual(
    answers.map((answer) => answer.statusCode),
    [...Array<number>(20).fill(200), ...Array<number>(10).fill(302)],
  );
  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as { smart_link: Link };
  assert.deepEqual(
    [read.smart_link.views, read.smart_link.clicks, read.smart_link.targets.map((target) => target.clicks)],
    [20, 10, [10, 0]],
  );
  const result = await stats(h, key, link.id);
  assert.deepEqual(result.days, [{ date: '2026-03-02', views: 20, clicks: 10 }]);
  assert.deepEqual(result.devices, [{ device: 'mobile', views: 20 }]);
  assert.deepEqual(result.platforms, [
    { platform: 'spotify', title: 'Spotify', clicks: 10, share_percent: 100 },
  ]);
});
