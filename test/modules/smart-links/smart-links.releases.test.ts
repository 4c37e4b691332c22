import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenRelease } from '../../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, json } from '../../helpers/harness.ts';
import { createLink, DEEZER, NEW_LINK, SPOTIFY } from './smart-links.fixtures.ts';

test('POST /smart-links/lookup: a release of the label by UPC with its store links as targets; unknown UPC 404', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const stranger = await givenCaller(h);
  const release = await givenRelease(h, label.id, {
    title: 'Night Drive',
    upc: '036000291452',
    status: 'live',
    release_date: '2026-02-20',
    cover_hash: 'a'.repeat(64),
    cover_format: 'png',
    store_links: JSON.stringify({
      deezer: DEEZER.url,
      spotify: SPOTIFY.url,
      unknown_store: 'https://x.test',
    }),
  });
  const response = await call(h, 'POST', '/api/v1/smart-links/lookup', {
    key,
    payload: { upc: ' 036000291452 ' },
  });
  assert.equal(response.statusCode, 200, response.body);
  const found = json(response) as { artist_name: string; targets: unknown };
  assert.deepEqual(found, {
    upc: '036000291452',
    title: 'Night Drive',
    artist_name: found.artist_name,
    cover_url: `${BASE_URL}/media/covers/${'a'.repeat(64)}.png`,
    release_id: release.id,
    release_date: '2026-02-20',
    targets: [SPOTIFY, DEEZER],
  });
  assert.ok(found.artist_name.length > 0);

  const created = await createLink(h, key, {
    title: 'Night Drive',
    artist_name: found.artist_name,
    release_date: '2026-02-20',
    targets: found.targets,
    release_id: release.id,
  });
  assert.deepEqual(
    created.targets.map(({ platform, url }) => ({ platform, url })),
    [SPOTIFY, DEEZER],
  );

  for (const [caller, upc] of [
    [key, '5012345678900'],
    [stranger.key, '036000291452'],
  ] as const) {
    const missing = await call(h, 'POST', '/api/v1/smart-links/lookup', { key: caller, payload: { upc } });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(json(missing), { error: 'Release with this UPC not found', code: 'not_found' });
  }
  const empty = await call(h, 'POST', '/api/v1/smart-links/lookup', { key, payload: {} });
  assert.equal(empty.statusCode, 400);
  assert.equal((json(empty) as { field: string }).field, 'upc');
});

test('GET /reports/catalog-health counts and lists disabled links; /analytics/releases/{id} sums the release links', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  const tied = await createLink(h, key, { ...NEW_LINK, release_id: release.id });
  const disabled = await createLink(h, key, { ...NEW_LINK, title: 'Old teaser', release_id: release.id });
  await createLink(h, key, { ...NEW_LINK, title: 'Unrelated' });
  await h.ctx.db
    .updateTable('smart_links')
    .set({ views: 40, clicks: 10 })
    .where('id', '=', tied.id)
    .execute();
  await h.ctx.db
    .updateTable('smart_links')
    .set({ views: 2, clicks: 1 })
    .where('id', '=', disabled.id)
    .execute();
  await call(h, 'DELETE', `/api/v1/smart-links/${disabled.id}`, { key });

  const health = json(await call(h, 'GET', '/api/v1/reports/catalog-health', { key })) as {
    counts: { disabled_smart_links: number };
    issues: { disabled_smart_links: unknown };
  };
  assert.equal(health.counts.disabled_smart_links, 1);
  assert.deepEqual(health.issues.disabled_smart_links, [
    { id: disabled.id, title: 'Old teaser', status: 'disabled', release_id: release.id },
  ]);

  const analytics = json(await call(h, 'GET', `/api/v1/analytics/releases/${release.id}`, { key })) as {
    smart_links: unknown;
  };
  assert.deepEqual(analytics.smart_links, {
    total: 2,
    views: 42,
    clicks: 11,
    items: [
      { id: tied.id, title: 'Night Drive', url: tied.url, enabled: true, views: 40, clicks: 10 },
      { id: disabled.id, title: 'Old teaser', url: disabled.url, enabled: false, views: 2, clicks: 1 },
    ],
  });
});
