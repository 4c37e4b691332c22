import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateLabel } from '../../../src/modules/labels/labels.service.ts';
import { givenRelease } from '../../helpers/catalog.ts';
import {
  BASE_URL,
  buildHarness,
  call,
  givenCaller,
  givenKey,
  type Harness,
  json,
} from '../../helpers/harness.ts';

const CREATED_AT = '2026-03-02T10:00:00.000Z';
const SPOTIFY = { platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' };
const APPLE = { platform: 'apple_music', url: 'https://music.apple.com/album/night-drive/1440857781' };
const DEEZER = { platform: 'deezer', url: 'https://www.deezer.com/album/302127' };

interface LinkView {
  id: number;
  code: string;
  url: string;
  targets: { id: number; platform: string; url: string; clicks: number }[];
  [field: string]: unknown;
}

const NEW_LINK = {
  title: 'Night Drive',
  artist_name: 'Mira Vale',
  release_date: '2026-05-01',
  targets: [SPOTIFY, APPLE],
};

async function createLink(
  h: Harness,
  key: string,
  body: Record<string, unknown> = NEW_LINK,
): Promise<LinkView> {
  const response = await call(h, 'POST', '/api/v1/smart-links', { key, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as { smart_link: LinkView }).smart_link;
}

async function patchLink(h: Harness, key: string, id: number, body: Record<string, unknown>) {
  return call(h, 'PATCH', `/api/v1/smart-links/${id}`, { key, payload: body });
}

test('POST /smart-links: 201 with the whole link, a random code with a capital letter, its page address and Location', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const response = await call(h, 'POST', '/api/v1/smart-links', { key, payload: NEW_LINK });
  assert.equal(response.statusCode, 201);
  assert.equal(response.headers['x-api-version'], '1.1.0');
  assert.equal(response.headers['cache-control'], 'no-store');
  const link = (json(response) as { smart_link: LinkView }).smart_link;
  assert.match(link.code, /^[A-Za-z0-9]{7}$/);
  assert.match(link.code, /[A-Z]/);
  assert.equal(response.headers.location, `${BASE_URL}/api/v1/smart-links/${link.id}`);
  assert.deepEqual(link, {
    id: link.id,
    code: link.code,
    slug: null,
    url: `${BASE_URL}/l/${link.code}`,
    enabled: true,
    title: 'Night Drive',
    artist_name: 'Mira Vale',
    release_date: '2026-05-01',
    release_id: null,
    presave_open: true,
    views: 0,
    clicks: 0,
    presaves: 0,
    targets: [
      { id: link.targets[0]?.id, ...SPOTIFY, clicks: 0 },
      { id: link.targets[1]?.id, ...APPLE, clicks: 0 },
    ],
    theme: 'auto',
    accent: null,
    cta_text: null,
    hide_branding: false,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
  });
  const read = await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(json(read), { smart_link: link });
  assert.ok(read.headers.etag);
});

test('presave_open is true only while the release date is after today (UTC)', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const today = await createLink(h, key, { ...NEW_LINK, release_date: '2026-03-02' });
  const tomorrow = await createLink(h, key, { ...NEW_LINK, release_date: '2026-03-03' });
  assert.equal(today.presave_open, false);
  assert.equal(tomorrow.presave_open, true);
  h.clock.advance(24 * 3_600_000);
  const later = json(await call(h, 'GET', `/api/v1/smart-links/${tomorrow.id}`, { key })) as {
    smart_link: LinkView;
  };
  assert.equal(later.smart_link.presave_open, false);
});

test('POST /smart-links: bad input is 400 invalid naming the field, and nothing is stored', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const other = await givenCaller(h);
  const foreignRelease = await givenRelease(h, other.label.id);
  const cases: [Record<string, unknown>, string][] = [
    [{ ...NEW_LINK, title: undefined }, 'title'],
    [{ ...NEW_LINK, title: '   ' }, 'title'],
    [{ ...NEW_LINK, artist_name: '' }, 'artist_name'],
    [{ ...NEW_LINK, release_date: '2026-02-30' }, 'release_date'],
    [{ ...NEW_LINK, release_date: 'soon' }, 'release_date'],
    [{ ...NEW_LINK, targets: [{ platform: 'myspace', url: 'https://myspace.com/x' }] }, 'targets.0.platform'],
    [{ ...NEW_LINK, targets: [SPOTIFY, { platform: 'deezer', url: 'ftp://deezer.com/x' }] }, 'targets.1.url'],
    [{ ...NEW_LINK, targets: [SPOTIFY, { platform: 'deezer', url: 'not a url' }] }, 'targets.1.url'],
    [
      { ...NEW_LINK, targets: [SPOTIFY, { ...SPOTIFY, url: 'https://open.spotify.com/x' }] },
      'targets.1.platform',
    ],
    [{ ...NEW_LINK, release_id: foreignRelease.id }, 'release_id'],
    [{ ...NEW_LINK, release_id: 'one' }, 'release_id'],
  ];
  for (const [payload, field] of cases) {
    const response = await call(h, 'POST', '/api/v1/smart-links', { key, payload });
    assert.equal(response.statusCode, 400, `${field}: ${response.body}`);
    const body = json(response) as { code: string; field: string; error: string };
    assert.equal(body.code, 'invalid', field);
    assert.equal(body.field, field, response.body);
    assert.equal(typeof body.error, 'string');
  }
  const list = json(await call(h, 'GET', '/api/v1/smart-links', { key })) as { total: number };
  assert.equal(list.total, 0);
  const usage = (await h.ctx.db.selectFrom('smart_link_targets').selectAll().execute()).length;
  assert.equal(usage, 0);
});

test('scopes: reading needs links:read, writing links:write, statistics stats:read', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const link = await createLink(h, key);
  const reader = await givenKey(h, label.id, { scopes: ['links:read'] });
  const writer = await givenKey(h, label.id, { scopes: ['catalog:read'] });
  const denied = await call(h, 'POST', '/api/v1/smart-links', { key: reader, payload: NEW_LINK });
  assert.equal(denied.statusCode, 403);
  assert.deepEqual(json(denied), {
    error: 'This key lacks the scope links:write',
    code: 'forbidden',
    required_scope: 'links:write',
  });
  for (const [method, url] of [
    ['PATCH', `/api/v1/smart-links/${link.id}`],
    ['DELETE', `/api/v1/smart-links/${link.id}`],
  ] as const) {
    const response = await call(h, method, url, {
      key: reader,
      payload: method === 'PATCH' ? { title: 'x' } : undefined,
    });
    assert.equal((json(response) as { required_scope: string }).required_scope, 'links:write', url);
  }
  const stats = await call(h, 'GET', `/api/v1/smart-links/${link.id}/stats`, { key: reader });
  assert.deepEqual(json(stats), {
    error: 'This key lacks the scope stats:read',
    code: 'forbidden',
    required_scope: 'stats:read',
  });
  for (const url of ['/api/v1/smart-links', `/api/v1/smart-links/${link.id}`]) {
    const response = await call(h, 'GET', url, { key: writer });
    assert.equal((json(response) as { required_scope: string }).required_scope, 'links:read', url);
  }
  assert.equal((await call(h, 'GET', '/api/v1/smart-links', { key: reader })).statusCode, 200);
});

test("another label's link answers 404 on every operation", async (t) => {
  const h = await buildHarness(t);
  const owner = await givenCaller(h);
  const stranger = await givenCaller(h);
  const link = await createLink(h, owner.key);
  const notFound = { error: 'Smart link not found', code: 'not_found' };
  for (const [method, url, payload] of [
    ['GET', `/api/v1/smart-links/${link.id}`, undefined],
    ['PATCH', `/api/v1/smart-links/${link.id}`, { title: 'Mine now' }],
    ['DELETE', `/api/v1/smart-links/${link.id}`, undefined],
    ['GET', `/api/v1/smart-links/${link.id}/stats`, undefined],
  ] as const) {
    const response = await call(h, method, url, { key: stranger.key, payload });
    assert.equal(response.statusCode, 404, `${method} ${url}`);
    assert.deepEqual(json(response), notFound);
  }
  const list = json(await call(h, 'GET', '/api/v1/smart-links', { key: stranger.key })) as { total: number };
  assert.equal(list.total, 0);
  const still = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key: owner.key })) as {
    smart_link: LinkView;
  };
  assert.equal(still.smart_link.title, 'Night Drive');
  assert.equal(still.smart_link.enabled, true);
});

test('GET /smart-links: newest first, filtered by q (any case, any script), enabled and release_id, paged with headers', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { title: 'Ночной город' });
  const first = await createLink(h, key, { ...NEW_LINK, title: 'Ночной город', release_id: release.id });
  const second = await createLink(h, key, { ...NEW_LINK, title: 'Sunrise', artist_name: 'Lumen' });
  const third = await createLink(h, key, { ...NEW_LINK, title: 'Low Tide' });
  await call(h, 'DELETE', `/api/v1/smart-links/${third.id}`, { key });

  const ids = async (query: string) => {
    const response = await call(h, 'GET', `/api/v1/smart-links${query}`, { key });
    assert.equal(response.statusCode, 200, response.body);
    const body = json(response) as { smart_links: LinkView[]; total: number };
    assert.equal(response.headers['x-total-count'], String(body.total));
    return body.smart_links.map((link) => link.id);
  };
  assert.deepEqual(await ids(''), [third.id, second.id, first.id]);
  assert.deepEqual(await ids('?q=НОЧНОЙ'), [first.id]);
  assert.deepEqual(await ids('?q=lumen'), [second.id]);
  assert.deepEqual(await ids('?enabled=false'), [third.id]);
  assert.deepEqual(await ids('?enabled=true'), [second.id, first.id]);
  assert.deepEqual(await ids(`?release_id=${release.id}`), [first.id]);
  assert.deepEqual(await ids('?q=%25'), []);

  const page = await call(h, 'GET', '/api/v1/smart-links?per_page=2&page=2', { key });
  const body = json(page) as { smart_links: LinkView[]; page: number; per_page: number; total: number };
  assert.deepEqual(
    {
      ids: body.smart_links.map((link) => link.id),
      page: body.page,
      per_page: body.per_page,
      total: body.total,
    },
    { ids: [first.id], page: 2, per_page: 2, total: 3 },
  );
  assert.equal(
    page.headers.link,
    `<${BASE_URL}/api/v1/smart-links?page=1&per_page=2>; rel="prev", <${BASE_URL}/api/v1/smart-links?page=2&per_page=2>; rel="last"`,
  );
  const bad = await call(h, 'GET', '/api/v1/smart-links?enabled=maybe', { key });
  assert.equal(bad.statusCode, 400);
  assert.equal((json(bad) as { field: string }).field, 'enabled');
});

test('PATCH /smart-links/{id}: targets replaced as a whole, kept platforms keep their id and clicks', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await createLink(h, key);
  const [spotify, apple] = link.targets;
  await h.ctx.db
    .updateTable('smart_link_targets')
    .set({ clicks: 7 })
    .where('platform', '=', 'spotify')
    .execute();
  await h.ctx.db
    .updateTable('smart_link_targets')
    .set({ clicks: 3 })
    .where('platform', '=', 'apple_music')
    .execute();
  h.clock.advance(60_000);

  const newSpotify = 'https://open.spotify.com/album/new';
  const response = await patchLink(h, key, link.id, {
    title: 'Night Drive (Deluxe)',
    targets: [DEEZER, { platform: 'spotify', url: newSpotify }],
  });
  assert.equal(response.statusCode, 200, response.body);
  const patched = (json(response) as { smart_link: LinkView }).smart_link;
  assert.equal(patched.title, 'Night Drive (Deluxe)');
  assert.equal(patched.updated_at, '2026-03-02T10:01:00.000Z');
  assert.equal(patched.created_at, CREATED_AT);
  const deezer = patched.targets[0];
  assert.deepEqual(patched.targets, [
    { id: deezer?.id, ...DEEZER, clicks: 0 },
    { id: spotify?.id, platform: 'spotify', url: newSpotify, clicks: 7 },
  ]);
  assert.notEqual(deezer?.id, apple?.id);
  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as {
    smart_link: LinkView;
  };
  assert.deepEqual(read.smart_link, patched);

  const empty = await patchLink(h, key, link.id, { targets: [] });
  assert.deepEqual((json(empty) as { smart_link: LinkView }).smart_link.targets, []);
});

test('PATCH: appearance fields and slug on the Label plan; 403 plan_required on Start, with nothing changed', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'start' });
  const link = await createLink(h, key);
  for (const field of [
    { slug: 'night-drive' },
    { theme: 'dark' },
    { accent: '#ff3366' },
    { cta_text: 'Out Friday' },
    { hide_branding: true },
  ]) {
    const response = await patchLink(h, key, link.id, { title: 'Changed', ...field });
    assert.equal(response.statusCode, 403, JSON.stringify(field));
    assert.deepEqual(json(response), {
      error: 'This needs the Label plan or above',
      code: 'plan_required',
      required_plan: 'label',
    });
  }
  const unchanged = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as {
    smart_link: LinkView;
  };
  assert.deepEqual(unchanged.smart_link, link);
  const plain = await patchLink(h, key, link.id, { title: 'Night Drive (Remix)' });
  assert.equal(plain.statusCode, 200);

  await updateLabel(h.ctx, label.id, { plan: 'label' });
  const styled = await patchLink(h, key, link.id, {
    slug: 'night-drive',
    theme: 'dark',
    accent: '#FF3366',
    cta_text: 'Out Friday',
    hide_branding: true,
  });
  assert.equal(styled.statusCode, 200, styled.body);
  const view = (json(styled) as { smart_link: LinkView }).smart_link;
  assert.deepEqual(
    {
      slug: view.slug,
      url: view.url,
      theme: view.theme,
      accent: view.accent,
      cta_text: view.cta_text,
      hide_branding: view.hide_branding,
      title: view.title,
    },
    {
      slug: 'night-drive',
      url: `${BASE_URL}/l/night-drive`,
      theme: 'dark',
      accent: '#ff3366',
      cta_text: 'Out Friday',
      hide_branding: true,
      title: 'Night Drive (Remix)',
    },
  );
  const cleared = await patchLink(h, key, link.id, { slug: null, accent: null, cta_text: null });
  const back = (json(cleared) as { smart_link: LinkView }).smart_link;
  assert.deepEqual([back.slug, back.url, back.accent, back.cta_text], [null, link.url, null, null]);
});

test('slugs: unique across the service (409 with field), lowercase letters, digits and hyphens, 3-64, reserved words refused', async (t) => {
  const h = await buildHarness(t);
  const mine = await givenCaller(h);
  const theirs = await givenCaller(h);
  const link = await createLink(h, mine.key);
  const other = await createLink(h, theirs.key);
  assert.equal((await patchLink(h, theirs.key, other.id, { slug: 'summer-2026' })).statusCode, 200);

  const taken = await patchLink(h, mine.key, link.id, { slug: 'summer-2026', title: 'Not applied' });
  assert.equal(taken.statusCode, 409);
  assert.deepEqual(json(taken), {
    error: 'This slug is taken; choose another',
    code: 'conflict',
    field: 'slug',
  });
  for (const slug of [
    'ab',
    'a'.repeat(65),
    'Night-Drive',
    'night drive',
    'night_drive',
    '-night',
    'night-',
    'go',
    'api',
  ]) {
    const response = await patchLink(h, mine.key, link.id, { slug });
    assert.equal(response.statusCode, 400, slug);
    assert.equal((json(response) as { field: string }).field, 'slug', slug);
  }
  const title = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key: mine.key })) as {
    smart_link: LinkView;
  };
  assert.deepEqual([title.smart_link.slug, title.smart_link.title], [null, 'Night Drive']);
  assert.equal((await patchLink(h, mine.key, link.id, { slug: 'abc' })).statusCode, 200);
  assert.equal((await patchLink(h, mine.key, link.id, { slug: 'a'.repeat(64) })).statusCode, 200);
  // Keeping one's own slug is no conflict.
  assert.equal((await patchLink(h, mine.key, link.id, { slug: 'a'.repeat(64) })).statusCode, 200);
});

test('DELETE disables the link (page 404, data kept); PATCH enabled: true restores it', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await createLink(h, key);
  const browser = {
    'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
  };
  assert.equal((await call(h, 'GET', `/l/${link.code}`, { headers: browser })).statusCode, 200);

  const deleted = await call(h, 'DELETE', `/api/v1/smart-links/${link.id}`, { key });
  assert.equal(deleted.statusCode, 200);
  assert.deepEqual(json(deleted), { ok: true });
  const page = await call(h, 'GET', `/l/${link.code}`, { headers: browser });
  assert.equal(page.statusCode, 404);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.equal((await call(h, 'GET', `/l/${link.code}/go/spotify`, { headers: browser })).statusCode, 404);

  const kept = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as {
    smart_link: LinkView;
  };
  assert.deepEqual([kept.smart_link.enabled, kept.smart_link.views], [false, 1]);
  const stats = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}/stats`, { key })) as {
    totals: { views: number };
  };
  assert.equal(stats.totals.views, 1);
  assert.equal((await call(h, 'DELETE', `/api/v1/smart-links/${link.id}`, { key })).statusCode, 200);

  const restored = await patchLink(h, key, link.id, { enabled: true });
  assert.equal((json(restored) as { smart_link: LinkView }).smart_link.enabled, true);
  assert.equal((await call(h, 'GET', `/l/${link.code}`, { headers: browser })).statusCode, 200);
});

test('Start holds 50 enabled links: the 51st is 403 plan_limit; a disabled link gives its place back until re-enabled', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { plan: 'start' });
  const links: LinkView[] = [];
  for (let i = 0; i < 50; i += 1) links.push(await createLink(h, key, { ...NEW_LINK, title: `Link ${i}` }));
  const limitBody = {
    error: 'The links limit of the plan is used up',
    code: 'plan_limit',
    resource: 'links',
    plan: 'start',
    limit: 50,
    used: 50,
    required_plan: 'label',
  };
  const refused = await call(h, 'POST', '/api/v1/smart-links', { key, payload: NEW_LINK });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(json(refused), limitBody);
  const usage = json(await call(h, 'GET', '/api/v1/me/usage', { key })) as {
    usage: { links: { used: number; limit: number; remaining: number } };
  };
  assert.deepEqual(usage.usage.links, { used: 50, limit: 50, remaining: 0 });

  const first = links[0];
  assert.ok(first);
  await call(h, 'DELETE', `/api/v1/smart-links/${first.id}`, { key });
  const replacement = await createLink(h, key, { ...NEW_LINK, title: 'Replacement' });
  const reEnable = await patchLink(h, key, first.id, { enabled: true });
  assert.equal(reEnable.statusCode, 403);
  assert.deepEqual(json(reEnable), limitBody);
  assert.equal((await call(h, 'DELETE', `/api/v1/smart-links/${replacement.id}`, { key })).statusCode, 200);
  assert.equal((await patchLink(h, key, first.id, { enabled: true })).statusCode, 200);
});

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

test('sandbox keys see only sandbox links, marked sandbox: true', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const live = await createLink(h, key);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const response = await call(h, 'POST', '/api/v1/smart-links', { key: sandboxKey, payload: NEW_LINK });
  assert.equal(response.statusCode, 201);
  assert.equal(response.headers['x-sandbox'], 'true');
  const test = (json(response) as { smart_link: LinkView }).smart_link;
  assert.equal(test.sandbox, true);
  const list = json(await call(h, 'GET', '/api/v1/smart-links', { key: sandboxKey })) as {
    smart_links: LinkView[];
  };
  assert.deepEqual(
    list.smart_links.map((link) => link.id),
    [test.id],
  );
  assert.equal((await call(h, 'GET', `/api/v1/smart-links/${live.id}`, { key: sandboxKey })).statusCode, 404);
  assert.equal((await call(h, 'GET', `/api/v1/smart-links/${test.id}`, { key })).statusCode, 404);
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
