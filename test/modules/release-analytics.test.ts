import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenRelease } from '../helpers/catalog.ts';
import {
  buildHarness,
  call,
  givenCaller,
  givenKey,
  givenLabel,
  type Harness,
  json,
} from '../helpers/harness.ts';

const LIVE_AT = '2026-02-20T09:00:00.000Z';
const UPC = '036000291452';

const NO_SMART_LINKS = { total: 0, views: 0, clicks: 0, items: [] };

async function givenStages(
  h: Harness,
  workspaceId: number,
  releaseId: number,
  stages: ReadonlyArray<readonly [string, string, string | null]>,
): Promise<void> {
  await h.ctx.db
    .insertInto('release_dsp_statuses')
    .values(
      stages.map(([dsp, stage, detail]) => ({
        release_id: releaseId,
        label_id: workspaceId,
        dsp,
        stage,
        detail,
        updated_at: LIVE_AT,
      })),
    )
    .execute();
}

test('GET /analytics/releases/{id}: the release, its platform stages counted and listed, store links', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const storeLinks = {
    apple_music: 'https://music.apple.com/album/night-drive/1',
    spotify: 'https://open.spotify.com/album/1',
  };
  const release = await givenRelease(h, label.id, {
    status: 'live',
    upc: UPC,
    review_status: 'approved',
    submitted_at: '2026-02-19T09:00:00.000Z',
    live_at: LIVE_AT,
    store_links: JSON.stringify(storeLinks),
  });
  await givenStages(h, label.id, release.id, [
    ['spotify', 'live', null],
    ['apple_music', 'live', null],
    ['deezer', 'accepted', null],
    ['tidal', 'submitted', null],
    ['napster', 'rejected', 'Cover art does not meet the platform’s artwork guidelines'],
  ]);

  const response = await call(h, 'GET', `/api/v1/analytics/releases/${release.id}`, { key });
  assert.equal(response.statusCode, 200);
  const status = (dsp: string, stage: string, detail: string | null = null) => ({
    dsp,
    stage,
    detail,
    updated_at: LIVE_AT,
  });
  assert.deepEqual(json(response), {
    release: {
      id: release.id,
      title: 'Night Drive',
      status: 'live',
      upc: UPC,
      release_date: '2026-06-01',
      live_at: LIVE_AT,
    },
    review_status: 'approved',
    platforms: {
      total: 5,
      by_stage: { submitted: 1, accepted: 1, live: 2, rejected: 1, failed: 0, taken_down: 0 },
      statuses: [
        status('apple_music', 'live'),
        status('deezer', 'accepted'),
        status('napster', 'rejected', 'Cover art does not meet the platform’s artwork guidelines'),
        status('spotify', 'live'),
        status('tidal', 'submitted'),
      ],
    },
    store_links: storeLinks,
    smart_links: NO_SMART_LINKS,
  });
});

test('a draft has no platforms, no store links and no review yet', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const draft = await givenRelease(h, label.id, { title: 'Work in Progress' });
  const response = await call(h, 'GET', `/api/v1/analytics/releases/${draft.id}`, { key });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    release: {
      id: draft.id,
      title: 'Work in Progress',
      status: 'draft',
      upc: null,
      release_date: '2026-06-01',
      live_at: null,
    },
    review_status: null,
    platforms: {
      total: 0,
      by_stage: { submitted: 0, accepted: 0, live: 0, rejected: 0, failed: 0, taken_down: 0 },
      statuses: [],
    },
    store_links: {},
    smart_links: NO_SMART_LINKS,
  });
});

test("another label's release and an unknown id are 404; a key without stats:read is 403", async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenLabel(h, { name: 'Other Records' });
  const foreign = await givenRelease(h, other.id, { status: 'live', upc: UPC });
  const own = await givenRelease(h, label.id);

  for (const id of [foreign.id, 999_999]) {
    const response = await call(h, 'GET', `/api/v1/analytics/releases/${id}`, { key });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(json(response), { error: 'Release not found', code: 'not_found' });
  }
  const invalid = await call(h, 'GET', '/api/v1/analytics/releases/abc', { key });
  assert.equal(invalid.statusCode, 400);

  const catalogOnly = await givenKey(h, label.id, { scopes: ['catalog:read'] });
  const forbidden = await call(h, 'GET', `/api/v1/analytics/releases/${own.id}`, { key: catalogOnly });
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(json(forbidden), {
    error: 'This key lacks the scope stats:read',
    code: 'forbidden',
    required_scope: 'stats:read',
  });
});

test('a sandbox key sees its own copy, marked sandbox: true', async (t) => {
  const h = await buildHarness(t);
  const { label } = await givenCaller(h);
  const real = await givenRelease(h, label.id, { status: 'live', upc: UPC, live_at: LIVE_AT });
  await givenStages(h, label.id, real.id, [['spotify', 'live', null]]);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true, scopes: ['catalog:read', 'stats:read'] });
  const list = json(await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })) as {
    releases: Array<{ id: number }>;
  };
  const copyId = list.releases[0]?.id ?? 0;

  const response = await call(h, 'GET', `/api/v1/analytics/releases/${copyId}`, { key: sandboxKey });
  assert.equal(response.statusCode, 200);
  const body = json(response) as { release: unknown; platforms: { total: number } };
  assert.deepEqual(body.release, {
    id: copyId,
    title: 'Night Drive',
    status: 'live',
    upc: UPC,
    release_date: '2026-06-01',
    live_at: LIVE_AT,
    sandbox: true,
  });
  assert.equal(body.platforms.total, 1);
  const realFromSandbox = await call(h, 'GET', `/api/v1/analytics/releases/${real.id}`, { key: sandboxKey });
  assert.equal(realFromSandbox.statusCode, 404);
});
