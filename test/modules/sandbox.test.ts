import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { createBackground } from '../../src/background.ts';
import { resetSandbox } from '../../src/modules/sandbox/sandbox.service.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';
import { fileExists, mediaPath } from '../helpers/media.ts';

async function givenLabelWithCatalog(h: Harness) {
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  const artist = await givenArtist(h, label.id, { name: 'Mira Vale' });
  const release = await givenRelease(h, label.id, {
    artist_id: artist.id,
    title: 'Live One',
    status: 'live',
    upc: '036000291452',
    cover_hash: 'c'.repeat(64),
    cover_format: 'jpeg',
  });
  await givenTrack(h, label.id, release.id, {
    title: 'Song',
    audio_hash: 'a'.repeat(64),
    audio_format: 'wav',
  });
  await h.ctx.db
    .insertInto('release_dsp_statuses')
    .values({
      release_id: release.id,
      label_id: label.id,
      dsp: 'spotify',
      stage: 'live',
      detail: null,
      updated_at: '2026-03-01T00:00:00.000Z',
    })
    .execute();
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  return { label, key, artist, release, sandboxKey };
}

async function sandboxIdOf(h: Harness, labelId: number): Promise<number> {
  const row = await h.ctx.db
    .selectFrom('labels')
    .select('id')
    .where('parent_id', '=', labelId)
    .executeTakeFirstOrThrow();
  return row.id;
}

test("a sandbox key's first request copies the label's catalog, marked sandbox: true, files shared", async (t) => {
  const h = await buildHarness(t);
  const { label, key, release, sandboxKey } = await givenLabelWithCatalog(h);
  const response = await call(h, 'GET', '/api/v1/releases', { key: sandboxKey });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-sandbox'], 'true');
  const { releases } = json(response) as {
    releases: Array<{ id: number; title: string; sandbox?: boolean; cover_url: string }>;
  };
  assert.equal(releases.length, 1);
  const copy = releases[0];
  assert.ok(copy);
  assert.notEqual(copy.id, release.id);
  assert.equal(copy.title, 'Live One');
  assert.equal(copy.sandbox, true);
  assert.match(
    copy.cover_url,
    new RegExp(`/media/covers/${'c'.repeat(64)}\\.jpg$`),
    'the cover file is shared',
  );
  const card = json(await call(h, 'GET', `/api/v1/releases/${copy.id}`, { key: sandboxKey })) as {
    release: {
      tracks: Array<{ title: string; sandbox?: boolean }>;
      dsp_statuses: Array<{ dsp: string }>;
      artist: { id: number };
    };
  };
  assert.deepEqual(
    card.release.tracks.map((track) => [track.title, track.sandbox]),
    [['Song', true]],
  );
  assert.deepEqual(
    card.release.dsp_statuses.map((status) => status.dsp),
    ['spotify'],
  );
  const sandboxId = await sandboxIdOf(h, label.id);
  const tracks = await h.ctx.db
    .selectFrom('tracks')
    .select(['label_id', 'audio_hash'])
    .orderBy('id')
    .execute();
  assert.deepEqual(tracks, [
    { label_id: label.id, audio_hash: 'a'.repeat(64) },
    { label_id: sandboxId, audio_hash: 'a'.repeat(64) },
  ]);
  const artists = json(await call(h, 'GET', '/api/v1/artists', { key: sandboxKey })) as {
    artists: Array<{ id: number; name: string; sandbox?: boolean; releases_count: number }>;
  };
  assert.deepEqual(
    artists.artists.map((a) => [a.name, a.sandbox, a.releases_count]),
    [['Mira Vale', true, 1]],
  );
  assert.equal(card.release.artist.id, artists.artists[0]?.id);
  const live = json(await call(h, 'GET', '/api/v1/releases', { key })) as {
    releases: Array<{ id: number; sandbox?: boolean }>;
  };
  assert.deepEqual(
    live.releases.map((r) => [r.id, r.sandbox]),
    [[release.id, undefined]],
    'a live key never sees the sandbox',
  );
});

test('the real catalog is neither visible nor changeable with a test key', async (t) => {
  const h = await buildHarness(t);
  const { key, release, artist, sandboxKey } = await givenLabelWithCatalog(h);
  for (const [method, path] of [
    ['GET', `/api/v1/releases/${release.id}`],
    ['DELETE', `/api/v1/releases/${release.id}`],
    ['PATCH', `/api/v1/artists/${artist.id}`],
    ['GET', `/api/v1/artists/${artist.id}`],
  ] as const) {
    const response = await call(h, method, path, {
      key: sandboxKey,
      ...(method === 'PATCH' && { payload: { name: 'X' } }),
    });
    assert.equal(response.statusCode, 404, `${method} ${path}`);
  }
  const copy = (
    json(await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })) as { releases: Array<{ id: number }> }
  ).releases[0];
  assert.ok(copy);
  const deleted = await call(h, 'DELETE', `/api/v1/releases/${copy.id}`, { key: sandboxKey });
  assert.equal(deleted.statusCode, 200, 'a sandbox release may be deleted whatever its status');
  assert.equal(
    (await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })).statusCode,
    200,
    'the real one stays',
  );
  const real = await h.ctx.db
    .selectFrom('tracks')
    .select('id')
    .where(
      'label_id',
      '=',
      (
        await h.ctx.db
          .selectFrom('releases')
          .select('label_id')
          .where('id', '=', release.id)
          .executeTakeFirstOrThrow()
      ).label_id,
    )
    .execute();
  assert.equal(real.length, 1);
  const created = await call(h, 'POST', '/api/v1/artists', {
    key: sandboxKey,
    payload: { name: 'Test Artist' },
  });
  assert.equal(created.statusCode, 201);
  assert.equal((json(created) as { artist: { sandbox?: boolean } }).artist.sandbox, true);
  const liveArtists = json(await call(h, 'GET', '/api/v1/artists', { key })) as { total: number };
  assert.equal(liveArtists.total, 1);
  const me = json(await call(h, 'GET', '/api/v1/me', { key })) as { plan: { usage: { artists: number } } };
  assert.equal(me.plan.usage.artists, 1, 'sandbox objects do not use the plan');
});

test("no write route reaches the label's live rows, events, usage or jobs with a test key", async (t) => {
  const h = await buildHarness(t);
  const { label, key, release, sandboxKey } = await givenLabelWithCatalog(h);
  const [track] = await h.ctx.db.selectFrom('tracks').select('id').where('label_id', '=', label.id).execute();
  assert.ok(track);
  const newLink = {
    title: 'Live One',
    artist_name: 'Mira Vale',
    release_date: '2026-05-01',
    targets: [{ platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' }],
  };
  const link = json(await call(h, 'POST', '/api/v1/smart-links', { key, payload: newLink })) as {
    smart_link: { id: number };
  };
  const live = async () => ({
    release: json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })),
    link: json(await call(h, 'GET', `/api/v1/smart-links/${link.smart_link.id}`, { key })),
    events: json(await call(h, 'GET', '/api/v1/events', { key })),
    usage: (json(await call(h, 'GET', '/api/v1/me/usage', { key })) as { usage: unknown }).usage,
    jobs: await h.ctx.db.selectFrom('jobs').select(['kind', 'payload']).execute(),
    requests: await h.ctx.db
      .selectFrom('support_requests')
      .select('id')
      .where('label_id', '=', label.id)
      .execute(),
  });
  const before = await live();

  const trackPath = `/api/v1/releases/${release.id}/tracks/${track.id}`;
  for (const [method, path, payload] of [
    ['PATCH', `/api/v1/releases/${release.id}`, { title: 'Hijacked' }],
    ['DELETE', `/api/v1/releases/${release.id}`, undefined],
    ['POST', `/api/v1/releases/${release.id}/submit`, { confirm_rights: true }],
    ['POST', `/api/v1/releases/${release.id}/takedown-request`, { reason: 'Hijacked' }],
    ['PATCH', trackPath, { title: 'Hijacked' }],
    ['DELETE', trackPath, undefined],
    ['PUT', `${trackPath}/lyrics`, { text: 'Hijacked' }],
    ['PUT', `${trackPath}/credits`, { featured: [{ name: 'Hijacked' }] }],
    ['PATCH', `/api/v1/smart-links/${link.smart_link.id}`, { title: 'Hijacked' }],
    ['DELETE', `/api/v1/smart-links/${link.smart_link.id}`, undefined],
  ] as const) {
    const response = await call(h, method, path, { key: sandboxKey, ...(payload && { payload }) });
    assert.equal(response.statusCode, 404, `${method} ${path}: ${response.body}`);
  }
  const refusedRelease = await call(h, 'POST', '/api/v1/support', {
    key: sandboxKey,
    payload: { message: 'About the live one', release_id: release.id },
  });
  assert.equal(refusedRelease.statusCode, 400, refusedRelease.body);

  const copy = (
    json(await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })) as { releases: Array<{ id: number }> }
  ).releases[0];
  assert.ok(copy);
  for (const [method, path, payload] of [
    ['POST', '/api/v1/smart-links', { ...newLink, title: 'Sandbox link' }],
    ['POST', `/api/v1/releases/${copy.id}/takedown-request`, { reason: 'Testing' }],
    ['POST', '/api/v1/support', { message: 'Testing', release_id: copy.id }],
    ['POST', '/api/v1/artists', { name: 'Sandbox Artist' }],
  ] as const) {
    const response = await call(h, method, path, { key: sandboxKey, payload });
    assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`);
  }
  assert.deepEqual(await live(), before);
});

test('concurrent first requests copy the catalog once', async (t) => {
  const h = await buildHarness(t);
  const { label, sandboxKey } = await givenLabelWithCatalog(h);
  const responses = await Promise.all(
    Array.from({ length: 8 }, () => call(h, 'GET', '/api/v1/artists', { key: sandboxKey })),
  );
  assert.deepEqual(
    responses.map((r) => r.statusCode),
    Array(8).fill(200),
  );
  for (const response of responses) assert.equal((json(response) as { total: number }).total, 1);
  const sandboxId = await sandboxIdOf(h, label.id);
  const copies = await h.ctx.db
    .selectFrom('artists')
    .select('id')
    .where('label_id', '=', sandboxId)
    .execute();
  assert.equal(copies.length, 1);
});

test('sandbox reset drops the copy and copies the label again', async (t) => {
  const h = await buildHarness(t);
  const { label, sandboxKey } = await givenLabelWithCatalog(h);
  await call(h, 'GET', '/api/v1/me', { key: sandboxKey });
  await call(h, 'POST', '/api/v1/artists', { key: sandboxKey, payload: { name: 'Scratch' } });
  await givenArtist(h, label.id, { name: 'Signed Later' });
  let names = (
    json(await call(h, 'GET', '/api/v1/artists', { key: sandboxKey })) as { artists: Array<{ name: string }> }
  ).artists.map((a) => a.name);
  assert.deepEqual(names, ['Mira Vale', 'Scratch']);
  const sandboxId = await sandboxIdOf(h, label.id);
  const at = h.clock.now().toISOString();
  await h.ctx.db
    .insertInto('support_requests')
    .values({ label_id: sandboxId, type: 'takedown', status: 'pending', created_at: at, updated_at: at })
    .execute();
  const result = await resetSandbox(h.ctx, label.id);
  const requests = await h.ctx.db
    .selectFrom('support_requests')
    .select('id')
    .where('label_id', '=', sandboxId)
    .execute();
  assert.deepEqual(requests, []);
  assert.equal(result.sandbox_id, await sandboxIdOf(h, label.id));
  names = (
    json(await call(h, 'GET', '/api/v1/artists', { key: sandboxKey })) as { artists: Array<{ name: string }> }
  ).artists.map((a) => a.name);
  assert.deepEqual(names, ['Mira Vale', 'Signed Later']);
  const releases = json(await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })) as { total: number };
  assert.equal(releases.total, 1);
  await assert.rejects(resetSandbox(h.ctx, 999_999), /not found/i);
});

test('sandbox reset leaves the files it let go to the server, which collects them under its upload lock', async (t) => {
  const h = await buildHarness(t);
  const { label, sandboxKey } = await givenLabelWithCatalog(h);
  await call(h, 'GET', '/api/v1/me', { key: sandboxKey });
  const sandboxId = await sandboxIdOf(h, label.id);
  const sandboxOnly = 'd'.repeat(64);
  const file = mediaPath(h.dataDir, 'covers', sandboxOnly, 'jpg');
  const liveFile = mediaPath(h.dataDir, 'covers', 'c'.repeat(64), 'jpg');
  for (const path of [file, liveFile]) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, path);
  }
  await h.ctx.db
    .updateTable('releases')
    .set({ cover_hash: sandboxOnly, cover_format: 'jpeg' })
    .where('label_id', '=', sandboxId)
    .execute();

  await resetSandbox(h.ctx, label.id);
  assert.equal(await fileExists(file), true, 'the command itself removes nothing');
  const background = createBackground(h.ctx);
  t.after(() => background.close());
  await background.worker.drain();
  assert.equal(await fileExists(file), false);
  assert.equal(await fileExists(liveFile), true, 'the label still uses its cover');
});
