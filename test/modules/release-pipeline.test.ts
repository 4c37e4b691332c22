import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { countJobs } from '../../src/jobs/jobs.store.ts';
import { isValidUpc } from '../../src/lib/gtin.ts';
import { SIMULATED_STEP_JOB } from '../../src/modules/distributor/distributor.jobs.ts';
import { decide, moderationQueue } from '../../src/modules/moderation/moderation.service.ts';
import { PLATFORM_KEYS } from '../../src/modules/platforms/platforms.catalog.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';
import { card, feed, givenDraft, submit } from '../helpers/pipeline.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { givenWebhook, givenWorker, LOOPBACK_RECEIVERS } from '../helpers/webhooks.ts';

const STEP_MS = 60_000;
const EVERY_RELEASE_EVENT = [
  'release.review_pending',
  'release.approved',
  'release.rejected',
  'release.submitted',
  'release.dsp_status',
  'release.live',
] as const;

async function history(h: Harness, key: string, id: number) {
  const response = await call(h, 'GET', `/api/v1/releases/${id}/history`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return (
    json(response) as {
      history: Array<{ status: string; review_status: string | null; comment: string | null }>;
    }
  ).history.map(({ status, review_status, comment }) => ({ status, review_status, comment }));
}

test('a release goes from an empty draft to live: moderation, identifiers, every platform, webhooks and the feed in the same order', async (t) => {
  const h = await buildHarness(t, { env: { ...LOOPBACK_RECEIVERS, DISTRIBUTOR_REJECT_RATE: '0' } });
  const receiver = await startReceiver(t);
  const { key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks`, [...EVERY_RELEASE_EVENT]);
  const { worker } = givenWorker(t, h, receiver, { concurrency: 1 });
  const { releaseId, artistId } = await givenDraft(h, key);
  assert.equal((await card(h, key, releaseId)).status, 'draft');

  const submitted = await submit(h, key, releaseId);
  assert.equal(submitted.statusCode, 202, submitted.body);
  assert.deepEqual(json(submitted), {
    ok: true,
    release_id: releaseId,
    status: 'submitting',
    review: 'pending',
    message:
      'The release is in moderation: automated checks run now; release.approved or release.rejected follows',
  });
  const waiting = await card(h, key, releaseId);
  assert.equal(waiting.status, 'submitting');
  assert.equal(waiting.review_status, 'pending');
  assert.equal(waiting.submitted_at, h.clock.now().toISOString());

  await worker.drain();
  const approved = await card(h, key, releaseId);
  assert.equal(approved.status, 'submitted');
  assert.equal(approved.review_status, 'approved');
  assert.equal(approved.review_comment, 'Automated checks passed');
  const upc = String(approved.upc);
  assert.match(upc, /^0860000\d{6}$/);
  assert.ok(isValidUpc(upc));
  const year = String(h.clock.now().getUTCFullYear()).slice(2);
  const isrcs = approved.tracks.map((track) => String(track.isrc));
  for (const isrc of isrcs) assert.match(isrc, new RegExp(`^USLD0${year}\\d{5}$`));
  assert.equal(new Set(isrcs).size, 2);

  for (const stage of ['submitted', 'accepted', 'live']) {
    h.clock.advance(STEP_MS);
    await worker.drain();
    const statuses = await call(h, 'GET', `/api/v1/releases/${releaseId}/dsp-status`, { key });
    const body = json(statuses) as {
      release_id: number;
      dsp_statuses: Array<{ dsp: string; stage: string }>;
    };
    assert.equal(body.release_id, releaseId);
    assert.deepEqual(
      body.dsp_statuses.map((status) => [status.dsp, status.stage]),
      [...PLATFORM_KEYS].sort().map((dsp) => [dsp, stage]),
    );
  }
  const live = await card(h, key, releaseId);
  assert.equal(live.status, 'live');
  assert.deepEqual(Object.keys(live.store_links as object).sort(), [...PLATFORM_KEYS].sort());
  assert.equal(
    (live.store_links as Record<string, string>).spotify,
    `https://open.spotify.com/search/${upc}`,
  );
  assert.deepEqual(await history(h, key, releaseId), [
    { status: 'draft', review_status: null, comment: null },
    { status: 'submitting', review_status: 'pending', comment: null },
    { status: 'submitted', review_status: 'approved', comment: 'Automated checks passed' },
    { status: 'live', review_status: 'approved', comment: 'Live on Spotify' },
  ]);

  const events = await feed(h, key);
  const expectedKinds = [
    'release.review_pending',
    'release.approved',
    'release.submitted',
    ...PLATFORM_KEYS.map(() => 'release.dsp_status'),
    ...PLATFORM_KEYS.map(() => 'release.dsp_status'),
    'release.dsp_status',
    'release.live',
    ...PLATFORM_KEYS.slice(1).map(() => 'release.dsp_status'),
  ];
  assert.deepEqual(
    events.map((event) => event.event),
    expectedKinds,
  );
  const artistName = (
    json(await call(h, 'GET', `/api/v1/artists/${artistId}`, { key })) as { artist: { name: string } }
  ).artist.name;
  const artist = { id: artistId, name: artistName };
  assert.deepEqual(events[0]?.data, {
    release: {
      id: releaseId,
      title: 'Night Drive',
      type: 'ep',
      status: 'submitting',
      upc: null,
      release_date: '2027-03-01',
      artist,
    },
  });
  const atDistributor = {
    id: releaseId,
    title: 'Night Drive',
    type: 'ep',
    status: 'submitted',
    upc,
    release_date: '2027-03-01',
    artist,
  };
  assert.deepEqual(events[1]?.data, { release: atDistributor, comment: 'Automated checks passed' });
  assert.deepEqual(events[2]?.data, { release: atDistributor, upc, isrcs });
  assert.deepEqual(events[3]?.data, {
    release: atDistributor,
    dsp: 'spotify',
    stage: 'submitted',
    detail: null,
  });
  const firstLive = events.findIndex((event) => event.event === 'release.live');
  assert.deepEqual(events[firstLive]?.data, { release: { ...atDistributor, status: 'live' }, upc });

  const deliveries = receiver.received.map((delivery) => {
    const signature = String(delivery.headers['x-service-signature']);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
    assert.equal(createHmac('sha256', webhook.secret).update(`${t}.${delivery.body}`).digest('hex'), v1);
    return JSON.parse(delivery.body) as { event: string; data: unknown; created_at: string };
  });
  assert.deepEqual(
    deliveries.map(({ event, data, created_at }) => ({ event, data, created_at })),
    events.map(({ event, data, created_at }) => ({ event, data, created_at })),
  );

  const status = json(await call(h, 'GET', '/api/v1/status')) as {
    checks: { distributor: { last_event_at: string | null } };
  };
  assert.equal(status.checks.distributor.last_event_at, h.clock.now().toISOString());
});

test('a rejected release is a draft again with the reasons; fixed and resubmitted, it is approved', async (t) => {
  const h = await buildHarness(t, { env: { DISTRIBUTOR_REJECT_RATE: '0' } });
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key, { title: 'NIGHT DRIVE FT. KAI' });

  assert.equal((await submit(h, key, releaseId)).statusCode, 202);
  await worker.drain();
  const rejected = await card(h, key, releaseId);
  assert.equal(rejected.status, 'draft');
  assert.equal(rejected.review_status, 'rejected');
  const comment = String(rejected.review_comment);
  assert.match(comment, /feat/i);
  assert.match(comment, /capital/i);
  assert.equal(rejected.upc, null);

  const fixed = await call(h, 'PATCH', `/api/v1/releases/${releaseId}`, {
    key,
    payload: { title: 'Night Drive' },
  });
  assert.equal(fixed.statusCode, 200, fixed.body);
  assert.equal((await submit(h, key, releaseId)).statusCode, 202);
  await worker.drain();
  const approved = await card(h, key, releaseId);
  assert.equal(approved.status, 'submitted');
  assert.equal(approved.review_status, 'approved');

  assert.deepEqual(await history(h, key, releaseId), [
    { status: 'draft', review_status: null, comment: null },
    { status: 'submitting', review_status: 'pending', comment: null },
    { status: 'draft', review_status: 'rejected', comment },
    { status: 'submitting', review_status: 'pending', comment: null },
    { status: 'submitted', review_status: 'approved', comment: 'Automated checks passed' },
  ]);
  const kinds = (await feed(h, key)).map((event) => [
    event.event,
    (event.data as { comment?: string }).comment,
  ]);
  assert.deepEqual(kinds, [
    ['release.review_pending', undefined],
    ['release.rejected', comment],
    ['release.review_pending', undefined],
    ['release.approved', 'Automated checks passed'],
    ['release.submitted', undefined],
  ]);
});

test('MODERATION=manual: the release waits for the operator, who approves or rejects it with a comment', async (t) => {
  const h = await buildHarness(t, { env: { MODERATION: 'manual' } });
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const first = await givenDraft(h, key);
  const second = await givenDraft(h, key);
  const submitted = await submit(h, key, first.releaseId);
  assert.equal(
    (json(submitted) as { message: string }).message,
    'The release is in moderation and waits for a moderator; release.approved or release.rejected follows',
  );
  assert.equal((await submit(h, key, second.releaseId)).statusCode, 202);
  await worker.drain();
  assert.equal((await card(h, key, first.releaseId)).status, 'submitting');

  const queue = await moderationQueue(h.ctx);
  assert.deepEqual(
    queue.map((item) => [item.release_id, item.tracks, item.findings]),
    [
      [first.releaseId, 2, []],
      [second.releaseId, 2, []],
    ],
  );

  assert.equal(await decide(h.ctx, first.releaseId, { approve: true, comment: 'Looks good' }), 'decided');
  await decide(h.ctx, second.releaseId, { approve: false, comment: 'The cover shows a store logo' });
  const approved = await card(h, key, first.releaseId);
  assert.deepEqual(
    [approved.status, approved.review_status, approved.review_comment],
    ['submitted', 'approved', 'Looks good'],
  );
  const rejected = await card(h, key, second.releaseId);
  assert.deepEqual(
    [rejected.status, rejected.review_status, rejected.review_comment],
    ['draft', 'rejected', 'The cover shows a store logo'],
  );
  await assert.rejects(decide(h.ctx, first.releaseId, { approve: false, comment: 'late' }), {
    code: 'conflict',
    message: `Release ${first.releaseId} is not waiting for moderation (it is submitted)`,
  });
  assert.deepEqual(await moderationQueue(h.ctx), []);
});

test('a sandbox submission is accepted at once and goes live after SANDBOX_LIVE_AFTER, with sandbox events on the label’s webhooks', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  await givenWebhook(h, key, `${receiver.origin}/hooks`, ['release.live', 'release.dsp_status']);
  const testKey = await givenKey(h, label.id, { sandbox: true });
  const { worker } = givenWorker(t, h, receiver);
  const { releaseId } = await givenDraft(h, testKey);

  const submitted = await submit(h, testKey, releaseId);
  assert.equal(submitted.statusCode, 202);
  assert.equal(submitted.headers['x-sandbox'], 'true');
  assert.deepEqual(json(submitted), {
    ok: true,
    release_id: releaseId,
    status: 'submitting',
    review: 'pending',
    message:
      'Sandbox: the release is accepted at once (release.approved follows) and goes live on every platform after SANDBOX_LIVE_AFTER; nothing is sent to the distributor',
  });

  const accepted = await card(h, testKey, releaseId);
  assert.equal(accepted.review_status, 'approved');
  assert.equal(accepted.status, 'submitted');
  assert.match(String(accepted.upc), /^200\d{10}$/);
  const year = String(h.clock.now().getUTCFullYear()).slice(2);
  assert.deepEqual(
    accepted.tracks.map((track) => track.isrc),
    [`XXSBX${year}00001`, `XXSBX${year}00002`],
  );
  assert.ok(isValidUpc(String(accepted.upc)));

  h.clock.advance(44_999);
  await worker.drain();
  assert.equal((await card(h, testKey, releaseId)).status, 'submitted');
  h.clock.advance(1);
  await worker.drain();
  assert.equal((await card(h, testKey, releaseId)).status, 'live');

  const events = await feed(h, testKey);
  assert.deepEqual(
    events.slice(0, 3).map((event) => event.event),
    ['release.review_pending', 'release.approved', 'release.submitted'],
  );
  assert.equal(events.filter((event) => event.event === 'release.dsp_status').length, PLATFORM_KEYS.length);
  assert.equal(events.filter((event) => event.event === 'release.live').length, 1);
  assert.ok(events.every((event) => event.data.sandbox === true));
  assert.deepEqual(await feed(h, key), []);

  await receiver.waitFor(PLATFORM_KEYS.length + 1);
  const delivered = receiver.received.map(
    (delivery) => JSON.parse(delivery.body) as { event: string; data: { sandbox?: boolean } },
  );
  assert.ok(delivered.every((delivery) => delivery.data.sandbox === true));
  assert.equal(delivered.filter((delivery) => delivery.event === 'release.live').length, 1);

  const status = json(await call(h, 'GET', '/api/v1/status')) as {
    checks: { distributor: { last_event_at: null } };
  };
  assert.equal(status.checks.distributor.last_event_at, null);
});

test('when every platform rejects the release it is failed, with each platform’s reason and no release.live', async (t) => {
  const h = await buildHarness(t, { env: { DISTRIBUTOR_REJECT_RATE: '1' } });
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key);
  await submit(h, key, releaseId);
  await worker.drain();
  for (let step = 0; step < 3; step++) {
    h.clock.advance(STEP_MS);
    await worker.drain();
  }
  const failed = await card(h, key, releaseId);
  assert.equal(failed.status, 'failed');
  const statuses = failed.dsp_statuses as Array<{ stage: string; detail: string | null }>;
  assert.equal(statuses.length, PLATFORM_KEYS.length);
  assert.ok(statuses.every((status) => status.stage === 'rejected' && (status.detail ?? '').length > 0));
  assert.deepEqual(failed.store_links, {});
  assert.equal((await history(h, key, releaseId)).at(-1)?.status, 'failed');
  const kinds = (await feed(h, key)).map((event) => event.event);
  assert.ok(!kinds.includes('release.live'));
  assert.equal(await countJobs(h.ctx.db, SIMULATED_STEP_JOB), 0);
});
