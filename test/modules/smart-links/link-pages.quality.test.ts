// What a fan's phone is sent: a page small enough for one round trip on a slow network, no script,
// and a cover in the width the screen needs, cached for good. The browser's side of the same
// promises is in link-pages.quality.browser.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { PLATFORM_KEYS } from '../../../src/modules/platforms/index.ts';
import { givenRelease } from '../../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, type Harness } from '../../helpers/harness.ts';
import { coverPng } from '../../helpers/pipeline.ts';
import { givenLink, IPHONE, open } from './link-pages.fixtures.ts';

/** The bound on a page's HTML: with the response headers it fits the first TCP window (about 14 KB) twice over. */
const PAGE_BYTES = 6 * 1024;

async function givenReleaseWithCover(h: Harness, key: string, labelId: number): Promise<number> {
  const release = await givenRelease(h, labelId);
  const upload = await call(h, 'PUT', `/api/v1/releases/${release.id}/cover`, {
    key,
    headers: { 'content-type': 'image/png' },
    payload: await coverPng(),
  });
  assert.equal(upload.statusCode, 200, upload.body);
  return release.id;
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

test('the largest realistic page, every platform, long titles and the pre-save form with its error, is under 6 KB and runs no script', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const releaseId = await givenReleaseWithCover(h, key, label.id);
  const link = await givenLink(h, key, {
    title: 'Symphony No. 9 in D minor, Op. 125 "Choral": IV. Presto – Allegro assai (Live, 2024 Remaster)',
    artist_name: 'Mira Vale & The Northern Lights Orchestra feat. Ari Lund',
    release_date: '2026-04-10',
    release_id: releaseId,
    targets: PLATFORM_KEYS.map((platform) => ({
      platform,
      url: `https://${platform}.example/album/4aawyAB9vmqN`,
    })),
  });
  const patched = await call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, {
    key,
    payload: {
      slug: 'symphony-no-9-choral-live-2024',
      theme: 'auto',
      accent: '#ff5a36',
      cta_text: 'Pre-save the new single before it drops',
    },
  });
  assert.equal(patched.statusCode, 200, patched.body);

  const refused = await call(h, 'POST', '/l/symphony-no-9-choral-live-2024/presave', {
    headers: { 'user-agent': IPHONE, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email: 'firstname.lastname@example-mail' }).toString(),
  });
  assert.equal(refused.statusCode, 400);
  const html = refused.body;
  assert.ok(html.includes('role="alert"'), 'the error is shown');
  assert.equal((html.match(/<a href=/g) ?? []).length, PLATFORM_KEYS.length, 'a button per platform');
  assert.ok(html.includes('srcset='), 'with the cover');
  const bytes = Buffer.byteLength(html);
  assert.ok(bytes < PAGE_BYTES, `${bytes} bytes`);
  t.diagnostic(`largest realistic page: ${bytes} bytes`);

  assert.doesNotMatch(html, /<script|\son[a-z]+=|javascript:/i);
  const policy = String(refused.headers['content-security-policy']);
  assert.match(policy, /^default-src 'none'; /);
  assert.doesNotMatch(policy, /script-src|unsafe-inline/);
});

test('the cover is offered at 400, 640 and 1000 px with the size it is shown at, and each copy is cached for good', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_id: await givenReleaseWithCover(h, key, label.id) });
  const release = await h.ctx.db
    .selectFrom('releases')
    .select('cover_hash')
    .where('label_id', '=', label.id)
    .executeTakeFirstOrThrow();
  const cover = `${BASE_URL}/media/covers/${release.cover_hash}.png`;

  const page = await open(h, `/l/${link.code}`);
  assert.equal(page.statusCode, 200);
  const img = /<img [^>]*>/.exec(page.body)?.[0] ?? '';
  assert.equal(attribute(img, 'src'), `${cover}?w=640`);
  assert.equal(
    attribute(img, 'srcset'),
    [400, 640, 1000].map((width) => `${cover}?w=${width} ${width}w`).join(','),
  );
  assert.equal(attribute(img, 'sizes'), '(max-width:392px) calc(100vw - 72px),320px');
  // The box is reserved before the image arrives: nothing below it moves when it does.
  assert.deepEqual([attribute(img, 'width'), attribute(img, 'height')], ['320', '320']);

  for (const width of [400, 640, 1000]) {
    const copy = await call(h, 'GET', `${cover.slice(BASE_URL.length)}?w=${width}`);
    assert.equal(copy.statusCode, 200, `w=${width}`);
    assert.equal(copy.headers['cache-control'], 'public, max-age=31536000, immutable');
    const { width: actual, height } = await sharp(copy.rawPayload).metadata();
    assert.deepEqual([actual, height], [width, width]);
  }
  // The page itself names no copy for sharing that the srcset does not.
  assert.ok(page.body.includes(`<meta property="og:image" content="${cover}?w=640">`));
});
