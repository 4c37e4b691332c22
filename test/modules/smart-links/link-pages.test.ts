import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease } from '../../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, type Harness, json } from '../../helpers/harness.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
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
const SPOTIFY_URL = 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy';

interface Link {
  id: number;
  code: string;
  url: string;
  presaves: number;
  views: number;
  clicks: number;
  targets: { platform: string; clicks: number }[];
}

async function givenLink(h: Harness, key: string, body: Record<string, unknown> = {}): Promise<Link> {
  const response = await call(h, 'POST', '/api/v1/smart-links', {
    key,
    payload: {
      title: 'Night Drive',
      artist_name: 'Mira Vale',
      release_date: '2026-02-20',
      targets: [
        { platform: 'spotify', url: SPOTIFY_URL },
        { platform: 'apple_music', url: 'https://music.apple.com/album/1440857781' },
      ],
      ...body,
    },
  });
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { smart_link: Link }).smart_link;
}

function open(
  h: Harness,
  path: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
) {
  return call(h, method, path, { headers: { 'user-agent': IPHONE, ...headers } });
}

async function stats(h: Harness, key: string, id: number) {
  const response = await call(h, 'GET', `/api/v1/smart-links/${id}/stats`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as Record<string, unknown> & { totals: Record<string, number> };
}

test('the public page: small server-rendered HTML with cover, title, artist, one button per target and sharing tags, no script', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { cover_hash: 'c'.repeat(64), cover_format: 'jpeg' });
  const link = await givenLink(h, key, { title: 'Night <Drive> & "Co"', release_id: release.id });

  const page = await open(h, `/l/${link.code}`);
  assert.equal(page.statusCode, 200);
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(page.headers['cache-control'], 'no-store');
  const html = page.body;
  assert.ok(Buffer.byteLength(html) < 20_000, `${Buffer.byteLength(html)} bytes`);
  assert.ok(html.startsWith('<!doctype html>') || html.startsWith('<!DOCTYPE html>'));
  assert.ok(html.includes('Night &lt;Drive&gt; &amp; &quot;Co&quot;'));
  assert.ok(!html.includes('<Drive>'));
  assert.ok(html.includes('Mira Vale'));
  assert.ok(html.includes(`href="${BASE_URL}/l/${link.code}/go/spotify"`));
  assert.ok(html.includes(`href="${BASE_URL}/l/${link.code}/go/apple_music"`));
  assert.ok(html.includes('Spotify') && html.includes('Apple Music'));
  const cover = `${BASE_URL}/media/covers/${'c'.repeat(64)}.jpg?w=640`;
  assert.ok(html.includes(`<img src="${cover}"`) || html.includes(`src="${cover}"`));
  for (const tag of [
    `<meta property="og:title" content="Night &lt;Drive&gt; &amp; &quot;Co&quot;">`,
    `<meta property="og:url" content="${BASE_URL}/l/${link.code}">`,
    `<meta property="og:image" content="${cover}">`,
    '<meta property="og:type" content="music.album">',
    '<meta name="twitter:card" content="summary_large_image">',
  ]) {
    assert.ok(html.includes(tag), tag);
  }
  assert.ok(!/<script/i.test(html));
  // Nothing but our own addresses: no fonts, scripts or trackers from elsewhere.
  const addresses = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
  for (const address of addresses) {
    assert.ok(
      address.startsWith(BASE_URL) || address.startsWith('data:') || address.startsWith('#'),
      address,
    );
  }
});

test('unknown and disabled addresses get a small 404 page; a slug works in any case, a code only as issued', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  await call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, { key, payload: { slug: 'night-drive' } });

  for (const path of [
    '/l/nothing-here',
    `/l/${link.code.toLowerCase()}`,
    `/l/${link.code}/go/deezer`,
    '/l/x/go/spotify',
  ]) {
    const response = await open(h, path);
    assert.equal(response.statusCode, 404, path);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.ok(Buffer.byteLength(response.body) < 3_000);
    assert.ok(response.body.includes('not available'));
  }
  assert.equal((await open(h, '/l/Night-Drive')).statusCode, 200);
  assert.equal((await open(h, `/l/${link.code}`)).statusCode, 200);
});

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

test('pre-save: the form while the release date is ahead; the address stored encrypted, counted once, presave.signup without it', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_date: '2026-04-10' });
  const page = await open(h, `/l/${link.code}`);
  assert.ok(page.body.includes(`action="${BASE_URL}/l/${link.code}/presave"`));
  assert.ok(page.body.includes('name="email"'));

  const form = (email: string) =>
    call(h, 'POST', `/l/${link.code}/presave`, {
      headers: { 'user-agent': IPHONE, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email }).toString(),
    });
  const signed = await form('Fan@Example.com');
  assert.equal(signed.statusCode, 200);
  assert.match(String(signed.headers['content-type']), /^text\/html/);
  assert.ok(!signed.body.includes('name="email"'), 'the form gives way to a confirmation');
  const again = await form('  fan@example.COM ');
  assert.equal(again.statusCode, 200);

  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as { smart_link: Link };
  assert.equal(read.smart_link.presaves, 1);
  assert.equal((await stats(h, key, link.id)).totals.presaves, 1);
  const stored = await h.ctx.db.selectFrom('smart_link_presaves').selectAll().execute();
  assert.equal(stored.length, 1);
  assert.ok(!JSON.stringify(stored).toLowerCase().includes('fan@example.com'));
  assert.ok(!JSON.stringify(stored).toLowerCase().includes('example'));

  const feed = json(await call(h, 'GET', '/api/v1/events', { key })) as {
    events: { event: string; data: { smart_link: Link; presaves: number } }[];
  };
  assert.deepEqual(
    feed.events.map((event) => event.event),
    ['presave.signup'],
  );
  const [event] = feed.events;
  assert.equal(event?.data.presaves, 1);
  assert.equal(event?.data.smart_link.id, link.id);
  assert.equal(event?.data.smart_link.presaves, 1);
  assert.ok(!JSON.stringify(feed).toLowerCase().includes('example.com'));

  const invalid = await form('not-an-address');
  assert.equal(invalid.statusCode, 400);
  assert.ok(invalid.body.includes('role="alert"'));
  assert.ok(invalid.body.includes('value="not-an-address"'));

  h.clock.advance(40 * 86_400_000);
  const closedPage = await open(h, `/l/${link.code}`);
  assert.ok(!closedPage.body.includes('name="email"'));
  const closed = await form('late@example.com');
  assert.equal(closed.statusCode, 409);
  assert.equal((await h.ctx.db.selectFrom('smart_link_presaves').selectAll().execute()).length, 1);
});

test('SHORT_LINK_BASE on a host of its own: pages are served by Host at its root, and link urls use it', async (t) => {
  const h = await buildHarness(t, { env: { SHORT_LINK_BASE: 'https://lnk.example' } });
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  assert.equal(link.url, `https://lnk.example/${link.code}`);
  const page = await open(h, `/${link.code}`, { host: 'lnk.example' });
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes(`href="https://lnk.example/${link.code}/go/spotify"`));
  const go = await open(h, `/${link.code}/go/spotify`, { host: 'lnk.example' });
  assert.equal(go.headers.location, SPOTIFY_URL);
  assert.equal((await open(h, `/${link.code}`, { host: 'api.labeldesk.test' })).statusCode, 404);
  assert.equal((await open(h, `/l/${link.code}`, { host: 'api.labeldesk.test' })).statusCode, 404);
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

test("the pre-save address opened directly leads to the page; a form without an address gets the page's message", async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_date: '2026-04-10' });
  const reload = await open(h, `/l/${link.code}/presave`);
  assert.equal(reload.statusCode, 302);
  assert.equal(reload.headers.location, link.url);
  assert.equal((await open(h, '/l/Nothing1/presave')).statusCode, 404);

  const empty = await call(h, 'POST', `/l/${link.code}/presave`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  assert.equal(empty.statusCode, 400);
  assert.match(String(empty.headers['content-type']), /^text\/html/);
  assert.ok(empty.body.includes('role="alert"'));
  assert.equal((await stats(h, key, link.id)).totals.presaves, 0);
});

test("a slug spelling another link's code never takes over its page; odd addresses and queries get the page or its 404, never an error", async (t) => {
  const h = await buildHarness(t);
  const victim = await givenCaller(h);
  const other = await givenCaller(h);
  const target = await givenLink(h, victim.key, { title: 'The real one' });
  const impostor = await givenLink(h, other.key, { title: 'Impostor' });
  const slug = target.code.toLowerCase();
  const claimed = await call(h, 'PATCH', `/api/v1/smart-links/${impostor.id}`, {
    key: other.key,
    payload: { slug },
  });
  assert.equal(claimed.statusCode, 200, claimed.body);
  await call(h, 'PATCH', `/api/v1/smart-links/${target.id}`, {
    key: victim.key,
    payload: { title: 'The real one' },
  });
  assert.ok((await open(h, `/l/${target.code}`)).body.includes('The real one'));
  assert.ok((await open(h, `/l/${slug}`)).body.includes('Impostor'));

  for (const path of [
    '/l/%00abc',
    '/l/ab',
    `/l/${'a'.repeat(65)}`,
    '/l/a%20b',
    '/l/%E2%9C%93%E2%9C%93%E2%9C%93/go/spotify',
  ]) {
    const response = await open(h, path);
    assert.equal(response.statusCode, 404, path);
    assert.match(String(response.headers['content-type']), /^text\/html/, path);
  }
  const nul = await call(h, 'POST', '/l/%00abc/presave', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=a%40b.co',
  });
  assert.equal(nul.statusCode, 404);
  const repeated = await open(h, `/l/${target.code}?utm_source=news&utm_source=other&x=%00`);
  assert.equal(repeated.statusCode, 200);
  const tagged = await open(h, `/l/${target.code}?utm_source=%00ads%01`);
  assert.equal(tagged.statusCode, 200);
  const sources = (await stats(h, victim.key, target.id)).sources;
  assert.deepEqual(sources, [
    { source: 'ads', views: 1 },
    { source: 'direct', views: 1 },
    { source: 'news', views: 1 },
  ]);
});

test('target addresses are stored normalized, so the redirect can always send them', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, {
    targets: [
      { platform: 'spotify', url: ' https://open.spotify.com/album/ночь ' },
      { platform: 'deezer', url: 'https://www.deezer.com/al\nbum/1' },
    ],
  });
  assert.deepEqual(
    link.targets.map((target) => (target as { url?: string }).url),
    ['https://open.spotify.com/album/%D0%BD%D0%BE%D1%87%D1%8C', 'https://www.deezer.com/album/1'],
  );
  const go = await open(h, `/l/${link.code}/go/spotify`);
  assert.equal(go.statusCode, 302);
  assert.equal(go.headers.location, 'https://open.spotify.com/album/%D0%BD%D0%BE%D1%87%D1%8C');
});

test('pre-saves and link changes at the same time all succeed (no deadlock between them)', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_date: '2026-09-01' });
  const work: Promise<{ statusCode: number }>[] = [];
  for (let i = 0; i < 30; i += 1) {
    work.push(
      call(h, 'POST', `/l/${link.code}/presave`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=fan${i}%40example.com`,
        remoteAddress: `10.0.${i}.1`,
      }),
    );
    if (i % 3 === 0) {
      const enabled = i % 2 === 0;
      work.push(
        call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, { key, payload: { title: `Take ${i}`, enabled } }),
      );
    }
  }
  const answers = await Promise.all(work);
  assert.deepEqual(
    answers.filter((answer) => answer.statusCode >= 500),
    [],
  );
  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as { smart_link: Link };
  const stored = await h.ctx.db.selectFrom('smart_link_presaves').select('id').execute();
  assert.equal(read.smart_link.presaves, stored.length);
});
