import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenRelease } from '../../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller } from '../../helpers/harness.ts';
import { givenLink, open, SPOTIFY_URL, stats } from './link-pages.fixtures.ts';

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
  // The buttons name their addresses by path: the page's own host completes them.
  assert.ok(html.includes(`href="/l/${link.code}/go/spotify"`));
  assert.ok(html.includes(`href="/l/${link.code}/go/apple_music"`));
  assert.ok(html.includes('Spotify') && html.includes('Apple Music'));
  const cover = `${BASE_URL}/media/covers/${'c'.repeat(64)}.jpg?w=640`;
  assert.ok(html.includes(`<img class="cover" src="${cover}"`));
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
      address.startsWith(BASE_URL) || address.startsWith(`/l/${link.code}/`) || address.startsWith('data:'),
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

test('SHORT_LINK_BASE on a host of its own: pages are served by Host at its root, and link urls use it', async (t) => {
  const h = await buildHarness(t, { env: { SHORT_LINK_BASE: 'https://lnk.example' } });
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  assert.equal(link.url, `https://lnk.example/${link.code}`);
  const page = await open(h, `/${link.code}`, { host: 'lnk.example' });
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes(`href="/${link.code}/go/spotify"`));
  assert.ok(page.body.includes(`<link rel="canonical" href="https://lnk.example/${link.code}">`));
  const go = await open(h, `/${link.code}/go/spotify`, { host: 'lnk.example' });
  assert.equal(go.headers.location, SPOTIFY_URL);
  assert.equal((await open(h, `/${link.code}`, { host: 'api.labeldesk.test' })).statusCode, 404);
  assert.equal((await open(h, `/l/${link.code}`, { host: 'api.labeldesk.test' })).statusCode, 404);
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
