import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenRelease } from '../helpers/catalog.ts';
import {
  assertError,
  assertUntouched,
  dspStatuses,
  events,
  postReports,
  releaseCard,
  type Scene,
  START,
  scene,
  sign,
  UPC,
  unixNow,
} from '../helpers/distributor-reports.ts';
import { call, givenKey, givenLabel, json } from '../helpers/harness.ts';

function eventRelease(s: Scene, status: string, releaseId = s.releaseId) {
  return {
    id: releaseId,
    title: 'Night Drive',
    type: 'single',
    status,
    upc: UPC,
    release_date: '2026-06-01',
    artist: { id: s.artistId, name: 'Mira Vale' },
  };
}

test('a signed report sets the platform stage and sends release.dsp_status', async (t) => {
  const s = await scene(t);
  const response = await postReports(s.h, {
    reports: [
      { release_id: s.releaseId, dsp: 'spotify', stage: 'accepted', detail: 'In the ingestion queue' },
    ],
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.deepEqual(json(response), {
    ok: true,
    applied: [
      {
        release_id: s.releaseId,
        dsp: 'spotify',
        stage: 'accepted',
        changed: true,
        release_status: 'submitted',
      },
    ],
  });
  assert.deepEqual(await dspStatuses(s), {
    release_id: s.releaseId,
    dsp_statuses: [
      { dsp: 'spotify', stage: 'accepted', detail: 'In the ingestion queue', updated_at: START },
    ],
  });
  assert.deepEqual(await events(s), [
    {
      event: 'release.dsp_status',
      data: {
        release: eventRelease(s, 'submitted'),
        dsp: 'spotify',
        stage: 'accepted',
        detail: 'In the ingestion queue',
      },
    },
  ]);
});

test('a live report makes the release live with its store link, and release.live is sent once', async (t) => {
  const s = await scene(t);
  const spotifyUrl = 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy';
  const first = await postReports(s.h, {
    reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'live', url: spotifyUrl }],
  });
  assert.deepEqual(json(first), {
    ok: true,
    applied: [
      { release_id: s.releaseId, dsp: 'spotify', stage: 'live', changed: true, release_status: 'live' },
    ],
  });
  s.h.clock.advance(60_000);
  const second = await postReports(s.h, {
    reports: [
      { release_id: s.releaseId, dsp: 'deezer', stage: 'live' },
      { release_id: s.releaseId, dsp: 'spotify', stage: 'live', url: spotifyUrl },
    ],
  });
  assert.deepEqual(json(second), {
    ok: true,
    applied: [
      { release_id: s.releaseId, dsp: 'deezer', stage: 'live', changed: true, release_status: 'live' },
      { release_id: s.releaseId, dsp: 'spotify', stage: 'live', changed: false, release_status: 'live' },
    ],
  });
  assert.deepEqual(await releaseCard(s), {
    status: 'live',
    store_links: { spotify: spotifyUrl, deezer: `https://www.deezer.com/search/${UPC}` },
  });
  const live = eventRelease(s, 'live');
  assert.deepEqual(await events(s), [
    { event: 'release.dsp_status', data: { release: live, dsp: 'spotify', stage: 'live', detail: null } },
    { event: 'release.live', data: { release: live, upc: UPC } },
    { event: 'release.dsp_status', data: { release: live, dsp: 'deezer', stage: 'live', detail: null } },
  ]);
});

test('/status shows when the distributor last reported', async (t) => {
  const s = await scene(t);
  const status = async () => {
    const body = json(await call(s.h, 'GET', '/api/v1/status')) as { checks: { distributor: unknown } };
    return body.checks.distributor;
  };
  assert.deepEqual(await status(), { ok: true, last_event_at: null });
  s.h.clock.advance(5_000);
  const response = await postReports(s.h, {
    reports: [{ release_id: s.releaseId, dsp: 'tidal', stage: 'submitted' }],
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(await status(), { ok: true, last_event_at: '2026-03-02T10:00:05.000Z' });
});

test('an invalid body is refused with 400 and the offending field', async (t) => {
  const s = await scene(t);
  const id = s.releaseId;
  const tooMany = Array.from({ length: 101 }, () => ({ release_id: id, dsp: 'spotify', stage: 'live' }));
  const cases: Array<[unknown, string, string]> = [
    [
      { reports: [{ release_id: id, dsp: 'spotify', stage: 'online' }] },
      'reports.0.stage',
      'must be equal to one of the allowed values',
    ],
    [
      { reports: [{ release_id: id, dsp: 'myspace', stage: 'live' }] },
      'reports.0.dsp',
      'must be equal to one of the allowed values',
    ],
    [
      { reports: [{ release_id: id, dsp: 'spotify' }] },
      'reports.0.stage',
      "must have required property 'stage'",
    ],
    [
      { reports: [{ release_id: '1', dsp: 'spotify', stage: 'live' }] },
      'reports.0.release_id',
      'must be integer',
    ],
    [{ reports: [{ release_id: 0, dsp: 'spotify', stage: 'live' }] }, 'reports.0.release_id', 'must be >= 1'],
    [
      {
        reports: [{ release_id: id, dsp: 'spotify', stage: 'live', url: 'http://open.spotify.com/album/1' }],
      },
      'reports.0.url',
      'must match pattern "^https://"',
    ],
    [
      { reports: [{ release_id: id, dsp: 'spotify', stage: 'live', detail: 'x'.repeat(501) }] },
      'reports.0.detail',
      'must NOT have more than 500 characters',
    ],
    [
      { reports: [{ release_id: id, dsp: 'spotify', stage: 'live', stag: 'live' }] },
      'reports.0.stag',
      'must NOT have additional properties',
    ],
    [{ reports: [] }, 'reports', 'must NOT have fewer than 1 items'],
    [{ reports: tooMany }, 'reports', 'must NOT have more than 100 items'],
    [{}, 'reports', "must have required property 'reports'"],
  ];
  for (const [body, field, problem] of cases) {
    assertError(await postReports(s.h, body), 400, { error: `${field} ${problem}`, code: 'invalid', field });
  }
  assertError(await postReports(s.h, '{"reports": ['), 400, {
    error: 'The body is not valid JSON',
    code: 'invalid',
    field: 'body',
  });
  assertError(await postReports(s.h, ''), 400, {
    error: 'The body is empty but the content type is application/json',
    code: 'invalid',
    field: 'body',
  });
  assertError(
    await postReports(s.h, {
      reports: [{ release_id: id, dsp: 'spotify', stage: 'live', detail: 'a\u0000b' }],
    }),
    400,
    {
      error: 'reports/0/detail must not contain the NUL character',
      code: 'invalid',
      field: 'reports/0/detail',
    },
  );
  assertError(
    await postReports(s.h, { reports: [{ release_id: id, dsp: 'spotify', stage: 'live', url: 'https://' }] }),
    400,
    { error: 'reports.0.url must be an https address', code: 'invalid', field: 'reports.0.url' },
  );
  await assertUntouched(s);
});

test('reports for an unknown release, a draft or an impossible move are refused', async (t) => {
  const s = await scene(t);
  const draft = await givenRelease(s.h, s.labelId, { title: 'Unfinished', artist_id: s.artistId });
  assertError(
    await postReports(s.h, { reports: [{ release_id: 987654, dsp: 'spotify', stage: 'live' }] }),
    400,
    {
      error: 'No release has id 987654',
      code: 'invalid',
      field: 'reports.0.release_id',
    },
  );
  assertError(
    await postReports(s.h, { reports: [{ release_id: draft.id, dsp: 'spotify', stage: 'live' }] }),
    409,
    {
      error: `Release ${draft.id} is not at the distributor (it is draft)`,
      code: 'conflict',
      field: 'reports.0.release_id',
    },
  );
  await assertUntouched(s);
  const live = await postReports(s.h, {
    reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'live' }],
  });
  assert.equal(live.statusCode, 200);
  assertError(
    await postReports(s.h, { reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'submitted' }] }),
    409,
    { error: 'spotify cannot move from live to submitted', code: 'conflict', field: 'reports.0.stage' },
  );
  assert.deepEqual((await releaseCard(s)).status, 'live');
});

test('a batch with one refused report applies nothing, and the same request can be sent again', async (t) => {
  const s = await scene(t);
  const waiting = await givenRelease(s.h, s.labelId, {
    title: 'Harbour Lights',
    artist_id: s.artistId,
    status: 'submitting',
    upc: '4006381333931',
  });
  const body = JSON.stringify({
    reports: [
      { release_id: s.releaseId, dsp: 'spotify', stage: 'live' },
      { release_id: waiting.id, dsp: 'spotify', stage: 'submitted' },
    ],
  });
  const signature = sign(body, unixNow(s.h));
  assertError(await postReports(s.h, body, { signature }), 409, {
    error: `Release ${waiting.id} is not at the distributor (it is submitting)`,
    code: 'conflict',
    field: 'reports.1.release_id',
  });
  await assertUntouched(s);
  const status = json(await call(s.h, 'GET', '/api/v1/status')) as { checks: { distributor: unknown } };
  assert.deepEqual(status.checks.distributor, { ok: true, last_event_at: null });

  // Moderation approves the second release; the very same signed request now applies whole.
  await s.h.ctx.db
    .updateTable('releases')
    .set({ status: 'submitted' })
    .where('id', '=', waiting.id)
    .execute();
  const retried = await postReports(s.h, body, { signature });
  assert.deepEqual(json(retried), {
    ok: true,
    applied: [
      { release_id: s.releaseId, dsp: 'spotify', stage: 'live', changed: true, release_status: 'live' },
      {
        release_id: waiting.id,
        dsp: 'spotify',
        stage: 'submitted',
        changed: true,
        release_status: 'submitted',
      },
    ],
  });
  assert.deepEqual(
    (await events(s)).map(({ event }) => event),
    ['release.dsp_status', 'release.live', 'release.dsp_status'],
  );
});

test("a batch publishes its events label by label, in the labels' order, whatever the order of its releases", async (t) => {
  const s = await scene(t);
  const other = await givenLabel(s.h, { contractSigned: true });
  const otherKey = await givenKey(s.h, other.id);
  const submitted = (upc: string) => ({ status: 'submitted' as const, upc, submitted_at: START });
  // A batch takes its releases in id order: the other label's release first, then the first label's.
  const theirs = await givenRelease(s.h, other.id, submitted('042100005264'));
  const ours = await givenRelease(s.h, s.labelId, { ...submitted('725272730706'), artist_id: s.artistId });
  const response = await postReports(s.h, {
    reports: [
      { release_id: ours.id, dsp: 'spotify', stage: 'accepted' },
      { release_id: theirs.id, dsp: 'spotify', stage: 'accepted' },
    ],
  });
  assert.equal(response.statusCode, 200, response.body);
  const eventIds = async (key: string) => {
    const feed = json(await call(s.h, 'GET', '/api/v1/events', { key })) as { events: Array<{ id: number }> };
    return feed.events.map((event) => event.id);
  };
  const [ourEvent] = await eventIds(s.key);
  const [theirEvent] = await eventIds(otherKey);
  // Each event holds its label's event sequence until the commit. Taken in the labels' order, two
  // batches naming the same two labels wait for each other; in their releases' order, each could
  // hold the label the other waits for.
  assert.ok(s.labelId < other.id);
  assert.ok(
    ourEvent !== undefined && theirEvent !== undefined && ourEvent < theirEvent,
    `${ourEvent} < ${theirEvent}`,
  );
});
