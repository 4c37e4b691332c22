// The smart-link page served from memory (issue 19): what a view reads, and what makes it read again.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { cacheLoads } from '../../../src/db/read-cache.ts';
import { givenRelease } from '../../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness } from '../../helpers/harness.ts';
import { givenLink, type Link, open, SPOTIFY_URL, stats } from './link-pages.fixtures.ts';

const HOUR_MS = 60 * 60 * 1000;

/** Database reads (of the page cache and the callers' caches) that `request` took. */
async function loadsBy(h: Harness, request: () => Promise<unknown>): Promise<number> {
  const before = cacheLoads(h.ctx.db);
  await request();
  return cacheLoads(h.ctx.db) - before;
}

/** Until the page is answered from memory: on PostgreSQL, values are kept once the channel listens. */
async function kept(h: Harness, path: string): Promise<void> {
  const started = performance.now();
  while ((await loadsBy(h, () => open(h, path))) > 0) {
    assert.ok(performance.now() - started < 5_000, `${path} is still read from the database`);
    await sleep(5);
  }
}

async function patch(h: Harness, key: string, link: Link, payload: Record<string, unknown>): Promise<void> {
  const response = await call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, { key, payload });
  assert.equal(response.statusCode, 200, response.body);
}

test('a page seen once is served from memory: views, clicks and the pre-save address read nothing, and still count', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  const page = `/l/${link.code}`;
  await kept(h, page);
  const before = (await stats(h, key, link.id)).totals;
  const bumpsBefore = await latestBump(h);

  for (let i = 0; i < 3; i++) {
    assert.equal(await loadsBy(h, () => open(h, page)), 0, 'a view');
    const click = await open(h, `${page}/go/spotify`);
    assert.equal(click.statusCode, 302);
    assert.equal(click.headers.location, SPOTIFY_URL);
    assert.equal(await loadsBy(h, () => open(h, `${page}/go/spotify`)), 0, 'a click');
    assert.equal(await loadsBy(h, () => open(h, `${page}/presave`)), 0, "the form's address");
  }
  const after = (await stats(h, key, link.id)).totals;
  assert.deepEqual(
    { views: after.views, clicks: after.clicks },
    { views: (before.views ?? 0) + 3, clicks: (before.clicks ?? 0) + 6 },
    'every view and click counted',
  );
  assert.equal(await latestBump(h), bumpsBefore, 'counting bumped no version');
});

test("a kept page carries its body's tag: a revisit with it is a bodiless 304, and an edit changes it", async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  const page = `/l/${link.code}`;
  await kept(h, page);
  const first = await open(h, page);
  assert.equal(first.statusCode, 200);
  assert.equal(first.headers.etag, `"${createHash('sha1').update(first.rawPayload).digest('base64url')}"`);
  assert.equal(first.headers['content-length'], String(first.rawPayload.length));

  const revisit = await open(h, page, { 'if-none-match': String(first.headers.etag) });
  assert.equal(revisit.statusCode, 304);
  assert.equal(revisit.body, '');
  assert.equal(revisit.headers.etag, first.headers.etag);

  await patch(h, key, link, { title: 'Morning Drive' });
  const edited = await open(h, page, { 'if-none-match': String(first.headers.etag) });
  assert.equal(edited.statusCode, 200, 'the old tag names the old page');
  assert.ok(edited.body.includes('Morning Drive'));
  assert.notEqual(edited.headers.etag, first.headers.etag);
});

/** The last version bumped (migrations 0012 and 0015), as text: a bigint on PostgreSQL. */
async function latestBump(h: Harness): Promise<string> {
  const row = await h.ctx.db
    .selectFrom('cache_versions')
    .select((eb) => eb.fn.max('version').as('version'))
    .executeTakeFirstOrThrow();
  return String(row.version);
}

test('an edit through the API shows on the next request: title, targets, slug, disabling and enabling', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  const page = `/l/${link.code}`;
  await kept(h, page);
  await kept(h, '/l/night-drive');
  assert.equal((await open(h, '/l/night-drive')).statusCode, 404, 'no link has the slug yet');

  await patch(h, key, link, { title: 'Morning Drive' });
  assert.ok((await open(h, page)).body.includes('Morning Drive'), 'the new title');

  await patch(h, key, link, {
    targets: [{ platform: 'deezer', url: 'https://www.deezer.com/album/302127' }],
  });
  const html = (await open(h, page)).body;
  assert.ok(html.includes(`"${page}/go/deezer"`) && !html.includes('/go/spotify'), 'the new buttons');
  assert.equal((await open(h, `${page}/go/spotify`)).statusCode, 404, 'a removed target');
  assert.equal((await open(h, `${page}/go/deezer`)).statusCode, 302, 'an added target');

  await patch(h, key, link, { slug: 'night-drive' });
  assert.equal((await open(h, '/l/night-drive')).statusCode, 200, 'the slug kept as "no link" now leads');
  assert.equal((await open(h, '/l/Night-Drive')).statusCode, 200, 'in any case');
  await kept(h, '/l/night-drive');
  await patch(h, key, link, { slug: 'dawn-drive' });
  assert.equal((await open(h, '/l/night-drive')).statusCode, 404, 'the old slug leads nowhere');
  assert.equal((await open(h, '/l/dawn-drive')).statusCode, 200);

  const removed = await call(h, 'DELETE', `/api/v1/smart-links/${link.id}`, { key });
  assert.equal(removed.statusCode, 200, removed.body);
  for (const path of [page, '/l/dawn-drive', `${page}/go/deezer`, `${page}/presave`]) {
    assert.equal((await open(h, path)).statusCode, 404, path);
  }
  await patch(h, key, link, { enabled: true });
  assert.equal((await open(h, page)).statusCode, 200, 'enabled again');
});

test("a new cover of the link's release, or its removal, shows on the next request", async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { cover_hash: 'c'.repeat(64), cover_format: 'jpeg' });
  const link = await givenLink(h, key, { release_id: release.id });
  const page = `/l/${link.code}`;
  await kept(h, page);
  assert.ok((await open(h, page)).body.includes('c'.repeat(64)));

  const cover = await sharp({ create: { width: 1400, height: 1400, channels: 3, background: '#204060' } })
    .png()
    .toBuffer();
  const put = await call(h, 'PUT', `/api/v1/releases/${release.id}/cover`, {
    key,
    headers: { 'content-type': 'image/png' },
    payload: cover,
  });
  assert.equal(put.statusCode, 200, put.body);
  const html = (await open(h, page)).body;
  assert.ok(!html.includes('c'.repeat(64)), 'the old cover is gone');
  assert.match(html, /\/media\/covers\/[0-9a-f]{64}\.png/);

  const removed = await call(h, 'DELETE', `/api/v1/releases/${release.id}`, { key });
  assert.equal(removed.statusCode, 200, removed.body);
  assert.doesNotMatch((await open(h, page)).body, /\/media\/covers\//, 'no cover once the release is gone');
});

test('a kept page with the pre-save form closes it when the release date comes, with no write', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  // The clock stands at 2026-03-02T10:00Z: pre-saves are open until 2026-03-03T00:00Z.
  const link = await givenLink(h, key, { release_date: '2026-03-03' });
  const page = `/l/${link.code}`;
  await kept(h, page);
  assert.ok((await open(h, page)).body.includes(`${page}/presave"`), 'the form');

  h.clock.advance(14 * HOUR_MS - 1);
  assert.equal(await loadsBy(h, () => open(h, page)), 0, 'kept until midnight');
  h.clock.advance(1);
  const after = (await open(h, page)).body;
  assert.ok(!after.includes(`${page}/presave"`), 'no form on the release date');
  assert.equal(await loadsBy(h, () => open(h, page)), 0, 'and the closed page is kept');
});
