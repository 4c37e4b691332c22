import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

const LINKS = JSON.stringify({ spotify: 'https://open.spotify.com/album/1' });

async function health(h: Harness, key: string) {
  const response = await call(h, 'GET', '/api/v1/reports/catalog-health', { key });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['cache-control'], 'no-store');
  return json(response) as Record<string, unknown>;
}

async function givenRejection(h: Harness, labelId: number, releaseId: number, dsp: string, stage: string) {
  await h.ctx.db
    .insertInto('release_dsp_statuses')
    .values({
      release_id: releaseId,
      label_id: labelId,
      dsp,
      stage,
      detail: null,
      updated_at: h.clock.now().toISOString(),
    })
    .execute();
}

test('an empty catalog is healthy: score 1, every count 0, every list empty', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  assert.deepEqual(await health(h, key), {
    generated_at: '2026-03-02T10:00:00.000Z',
    catalog: { releases: 0, live: 0, drafts: 0 },
    score: 1,
    counts: {
      releases_without_upc: 0,
      tracks_without_isrc: 0,
      stale_drafts: 0,
      dsp_rejections: 0,
      live_without_store_links: 0,
      disabled_smart_links: 0,
    },
    issues: {
      releases_without_upc: [],
      tracks_without_isrc: [],
      stale_drafts: [],
      dsp_rejections: [],
      live_without_store_links: [],
      disabled_smart_links: [],
    },
  });
});

test('the report counts and lists each remark, and scores the share of releases without any', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  const release = (title: string, fields: Parameters<typeof givenRelease>[2]) =>
    givenRelease(h, label.id, { artist_id: artist.id, title, store_links: LINKS, ...fields });

  const clean = await release('Clean', { status: 'live', upc: '5012345678900' });
  await givenTrack(h, label.id, clean.id, { title: 'Fine', isrc: 'USRC17607839' });
  const noUpc = await release('No UPC', { status: 'draft', upc: null });
  const stale = await release('Old Draft', {
    status: 'draft',
    upc: '5012345678917',
    created_at: '2026-01-15T08:00:00.000Z',
  });
  const rejected = await release('Rejected', { status: 'submitted', upc: '5012345678924' });
  await givenRejection(h, label.id, rejected.id, 'spotify', 'rejected');
  await givenRejection(h, label.id, rejected.id, 'apple', 'live');
  await givenRejection(h, label.id, rejected.id, 'deezer', 'rejected');
  const unlinked = await release('Unlinked', { status: 'live', upc: '5012345678931', store_links: '{}' });
  const withTrackIssue = await release('Track Issue', { status: 'live', upc: '5012345678948' });
  const noIsrc = await givenTrack(h, label.id, withTrackIssue.id, { title: 'No Code' });
  await givenTrack(h, label.id, withTrackIssue.id, { title: 'Coded', number: 2, isrc: 'USRC17607840' });
  await release('Also Clean', { status: 'live', upc: '5012345678955' });
  // Another label's problems are not ours.
  const foreign = await givenRelease(h, other.label.id, { status: 'live', upc: null });
  await givenTrack(h, other.label.id, foreign.id);
  await givenRejection(h, other.label.id, foreign.id, 'spotify', 'rejected');

  assert.deepEqual(await health(h, key), {
    generated_at: '2026-03-02T10:00:00.000Z',
    catalog: { releases: 7, live: 4, drafts: 2 },
    // 2 of 7 releases have no remark: 0.28571… rounded down.
    score: 0.2857,
    counts: {
      releases_without_upc: 1,
      tracks_without_isrc: 1,
      stale_drafts: 1,
      dsp_rejections: 1,
      live_without_store_links: 1,
      disabled_smart_links: 0,
    },
    issues: {
      releases_without_upc: [{ id: noUpc.id, title: 'No UPC', status: 'draft' }],
      tracks_without_isrc: [
        {
          id: noIsrc.id,
          title: 'No Code',
          release_id: withTrackIssue.id,
          release_title: 'Track Issue',
          status: 'live',
        },
      ],
      stale_drafts: [
        { id: stale.id, title: 'Old Draft', status: 'draft', created_at: '2026-01-15T08:00:00.000Z' },
      ],
      dsp_rejections: [
        { id: rejected.id, title: 'Rejected', status: 'submitted', dsps: ['deezer', 'spotify'] },
      ],
      live_without_store_links: [{ id: unlinked.id, title: 'Unlinked', status: 'live' }],
      disabled_smart_links: [],
    },
  });
});

test('a draft is stale once it was created more than a calendar month before now', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  const draft = (title: string, created_at: string) =>
    givenRelease(h, label.id, { artist_id: artist.id, title, upc: null, created_at });
  // The clock reads 2026-03-02T10:00:00.000Z.
  await draft('Exactly a month', '2026-02-02T10:00:00.000Z');
  const older = await draft('A moment more', '2026-02-02T09:59:59.999Z');

  const report = (await health(h, key)) as {
    counts: { stale_drafts: number };
    issues: { stale_drafts: unknown };
  };
  assert.equal(report.counts.stale_drafts, 1);
  assert.deepEqual(report.issues.stale_drafts, [
    { id: older.id, title: 'A moment more', status: 'draft', created_at: '2026-02-02T09:59:59.999Z' },
  ]);

  h.clock.advance(1);
  assert.equal(((await health(h, key)) as { counts: { stale_drafts: number } }).counts.stale_drafts, 2);
});

test('the score is rounded down, so only a catalog without remarks scores 1', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist = await givenArtist(h, label.id);
  for (const [n, upc] of ['5012345678900', '5012345678917', null].entries()) {
    await givenRelease(h, label.id, {
      artist_id: artist.id,
      title: `R${n}`,
      upc,
      status: 'live',
      store_links: LINKS,
    });
  }
  assert.equal((await health(h, key)).score, 0.6666);
});

test('the report lists at most 100 objects per remark while counting them all', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, {
    upc: '5012345678900',
    status: 'live',
    store_links: LINKS,
  });
  for (let n = 1; n <= 105; n++) await givenTrack(h, label.id, release.id, { title: `T${n}`, number: n });

  const report = (await health(h, key)) as {
    score: number;
    counts: { tracks_without_isrc: number };
    issues: { tracks_without_isrc: Array<{ title: string }> };
  };
  assert.equal(report.counts.tracks_without_isrc, 105);
  assert.equal(report.issues.tracks_without_isrc.length, 100);
  assert.equal(report.issues.tracks_without_isrc[99]?.title, 'T100');
  assert.equal(report.score, 0);
});

test('the report needs catalog:read', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { scopes: ['stats:read'] });
  const response = await call(h, 'GET', '/api/v1/reports/catalog-health', { key });
  assert.equal(response.statusCode, 403);
  assert.deepEqual(json(response), {
    error: 'This key lacks the scope catalog:read',
    code: 'forbidden',
    required_scope: 'catalog:read',
  });
});
