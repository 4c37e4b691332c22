import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenRelease } from '../../helpers/catalog.ts';
import { BASE_URL, buildHarness, call, givenCaller, givenKey, json } from '../../helpers/harness.ts';
import { APPLE, CREATED_AT, createLink, type LinkView, NEW_LINK, SPOTIFY } from './smart-links.fixtures.ts';

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

test('GET /smart-links lists each link with its own targets, and past the last page is empty with the total', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const first = await createLink(h, key);
  const second = await createLink(h, key, { ...NEW_LINK, title: 'Day Drive', targets: [APPLE] });
  const listed = json(await call(h, 'GET', '/api/v1/smart-links', { key })) as { smart_links: LinkView[] };
  assert.deepEqual(listed.smart_links, [second, first]);
  const beyond = await call(h, 'GET', '/api/v1/smart-links?per_page=1&page=5', { key });
  assert.equal(beyond.statusCode, 200);
  assert.deepEqual((json(beyond) as { smart_links: unknown[] }).smart_links, []);
  assert.equal(beyond.headers['x-total-count'], '2');
});
