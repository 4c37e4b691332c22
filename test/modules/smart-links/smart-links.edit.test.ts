import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateLabel } from '../../../src/modules/labels/labels.service.ts';
import { BASE_URL, buildHarness, call, givenCaller, type Harness, json } from '../../helpers/harness.ts';
import { CREATED_AT, createLink, DEEZER, type LinkView, NEW_LINK } from './smart-links.fixtures.ts';

async function patchLink(h: Harness, key: string, id: number, body: Record<string, unknown>) {
  return call(h, 'PATCH', `/api/v1/smart-links/${id}`, { key, payload: body });
}

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
