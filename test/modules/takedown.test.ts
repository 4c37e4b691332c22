import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWorker } from '../../src/jobs/worker.ts';
import {
  SIMULATED_TAKEDOWN_JOB,
  simulatedTakedownHandler,
} from '../../src/modules/distributor/distributor.jobs.ts';
import { PLATFORM_KEYS, platformSearchUrl } from '../../src/modules/platforms/platforms.catalog.ts';
import { approveTakedown, TAKEDOWN_APPROVED_REPLY } from '../../src/modules/support/takedown.service.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import {
  buildHarness,
  call,
  givenCaller,
  givenKey,
  givenLabel,
  type Harness,
  json,
} from '../helpers/harness.ts';

const NOW = '2026-03-02T10:00:00.000Z';
const LIVE_SINCE = '2026-02-20T09:00:00.000Z';
const UPC = '036000291452';

/** The workspace's one artist, Mira Vale, made on first use. */
async function artistOf(h: Harness, workspaceId: number): Promise<number> {
  const existing = await h.ctx.db
    .selectFrom('artists')
    .select('id')
    .where('label_id', '=', workspaceId)
    .executeTakeFirst();
  return existing?.id ?? (await givenArtist(h, workspaceId)).id;
}

/** A release the distributor delivered: live on every platform, with a track carrying an ISRC. */
async function givenLiveRelease(h: Harness, workspaceId: number, title = 'Night Drive', upc = UPC) {
  const storeLinks = Object.fromEntries(PLATFORM_KEYS.map((dsp) => [dsp, platformSearchUrl(dsp, upc)]));
  const release = await givenRelease(h, workspaceId, {
    artist_id: await artistOf(h, workspaceId),
    title,
    status: 'live',
    upc,
    review_status: 'approved',
    submitted_at: LIVE_SINCE,
    live_at: LIVE_SINCE,
    store_links: JSON.stringify(storeLinks),
  });
  await givenTrack(h, workspaceId, release.id, { isrc: 'USRC17607839' });
  await h.ctx.db
    .insertInto('release_dsp_statuses')
    .values(
      PLATFORM_KEYS.map((dsp) => ({
        release_id: release.id,
        label_id: workspaceId,
        dsp,
        stage: 'live',
        detail: null,
        updated_at: LIVE_SINCE,
      })),
    )
    .execute();
  return release;
}

function takedownWorker(h: Harness) {
  return createWorker(h.ctx, {
    handlers: { [SIMULATED_TAKEDOWN_JOB]: simulatedTakedownHandler(h.ctx) },
    leaseMs: 30_000,
  });
}

async function requestTakedown(h: Harness, key: string, releaseId: number, payload?: unknown) {
  return call(h, 'POST', `/api/v1/releases/${releaseId}/takedown-request`, {
    key,
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
}

async function storedRequests(h: Harness) {
  return h.ctx.db.selectFrom('support_requests').selectAll().orderBy('id').execute();
}

test('POST /releases/{id}/takedown-request: 201 with a pending request, stored for support, release untouched', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenLiveRelease(h, label.id);
  const before = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key }));

  h.clock.advance(1000);
  const response = await requestTakedown(h, key, release.id, { reason: '  The artist has left the label  ' });
  assert.equal(response.statusCode, 201);
  const created = json(response) as { request: { id: number } };
  assert.deepEqual(created, {
    request: {
      id: created.request.id,
      type: 'takedown',
      status: 'pending',
      created_at: '2026-03-02T10:00:01.000Z',
    },
  });
  assert.equal(response.headers.location, undefined, 'no GET of one request exists to point at');
  assert.equal(response.headers['x-sandbox'], undefined);

  assert.deepEqual(await storedRequests(h), [
    {
      id: created.request.id,
      label_id: label.id,
      type: 'takedown',
      status: 'pending',
      message: 'The artist has left the label',
      release_id: release.id,
      reply: null,
      dsps: null,
      created_at: '2026-03-02T10:00:01.000Z',
      updated_at: '2026-03-02T10:00:01.000Z',
    },
  ]);
  assert.deepEqual(
    json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })),
    before,
    'the release, its platforms and its updated_at stay as they were',
  );
  const jobs = await h.ctx.db.selectFrom('jobs').select('kind').execute();
  assert.deepEqual(jobs, [], 'nothing is sent to the distributor before support approves');
});

test('the body may be empty or {}; a reason over 2000 characters is 400 invalid', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const first = await givenLiveRelease(h, label.id, 'First', '042100005264');
  const second = await givenLiveRelease(h, label.id, 'Second', '614141000036');
  const third = await givenLiveRelease(h, label.id, 'Third', '885909950805');

  const noBody = await requestTakedown(h, key, first.id);
  assert.equal(noBody.statusCode, 201, noBody.body);
  const emptyObject = await requestTakedown(h, key, second.id, {});
  assert.equal(emptyObject.statusCode, 201, emptyObject.body);
  const tooLong = await requestTakedown(h, key, third.id, { reason: 'x'.repeat(2001) });
  assert.equal(tooLong.statusCode, 400);
  assert.deepEqual(
    { code: (json(tooLong) as { code: string }).code, field: (json(tooLong) as { field: string }).field },
    { code: 'invalid', field: 'reason' },
  );
  assert.deepEqual(
    (await storedRequests(h)).map((row) => [row.release_id, row.message]),
    [
      [first.id, null],
      [second.id, null],
    ],
  );
});

test('409 conflict for a release never sent (draft, submitting), one already taken down, and an open request', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const artist_id = await artistOf(h, label.id);
  const draft = await givenRelease(h, label.id, { artist_id, title: 'Draft' });
  const submitting = await givenRelease(h, label.id, {
    artist_id,
    title: 'In moderation',
    status: 'submitting',
  });
  const takenDown = await givenRelease(h, label.id, {
    artist_id,
    title: 'Gone',
    status: 'takedown',
    upc: '012345678905',
  });
  const live = await givenLiveRelease(h, label.id);

  const refusals = [
    [draft.id, `Release ${draft.id} was never sent to the platforms (it is draft): nothing to take down`],
    [
      submitting.id,
      `Release ${submitting.id} was never sent to the platforms (it is submitting): nothing to take down`,
    ],
    [takenDown.id, `Release ${takenDown.id} is already taken down from every platform`],
  ] as const;
  for (const [id, message] of refusals) {
    const response = await requestTakedown(h, key, id, { reason: 'please' });
    assert.equal(response.statusCode, 409, message);
    assert.deepEqual(json(response), { error: message, code: 'conflict' });
  }

  const first = json(await requestTakedown(h, key, live.id)) as { request: { id: number } };
  const again = await requestTakedown(h, key, live.id, { reason: 'again' });
  assert.equal(again.statusCode, 409);
  assert.deepEqual(json(again), {
    error: `A takedown request for release ${live.id} is already pending`,
    code: 'conflict',
    request_id: first.request.id,
  });

  // Approved but not yet carried out: still open, so still refused with the same id.
  await approveTakedown(h.ctx, first.request.id);
  const meanwhile = await requestTakedown(h, key, live.id);
  assert.equal(meanwhile.statusCode, 409);
  assert.deepEqual(json(meanwhile), {
    error: `A takedown request for release ${live.id} is already approved`,
    code: 'conflict',
    request_id: first.request.id,
  });
  assert.equal((await storedRequests(h)).length, 1);
});

test('two requests for one release at once: one is created, the other is 409 with its id', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenLiveRelease(h, label.id);
  const responses = await Promise.all([
    requestTakedown(h, key, release.id),
    requestTakedown(h, key, release.id),
  ]);
  assert.deepEqual(responses.map((response) => response.statusCode).sort(), [201, 409]);
  const [stored] = await storedRequests(h);
  const conflict = responses.find((response) => response.statusCode === 409);
  assert.equal((json(conflict ?? responses[0]) as { request_id?: number }).request_id, stored?.id);
  assert.equal((await storedRequests(h)).length, 1);
});

test("another label's release and an unknown id are 404; a key without support:write is 403", async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenLabel(h, { name: 'Other Records' });
  const foreign = await givenLiveRelease(h, other.id);
  const own = await givenLiveRelease(h, label.id);

  for (const id of [foreign.id, 999_999]) {
    const response = await requestTakedown(h, key, id);
    assert.equal(response.statusCode, 404);
    assert.deepEqual(json(response), { error: 'Release not found', code: 'not_found' });
  }

  const readOnly = await givenKey(h, label.id, { scopes: ['catalog:read', 'stats:read'] });
  const forbidden = await requestTakedown(h, readOnly, own.id);
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(json(forbidden), {
    error: 'This key lacks the scope support:write',
    code: 'forbidden',
    required_scope: 'support:write',
  });
  assert.deepEqual(await storedRequests(h), []);
});

test('a sandbox key gets the same answers, marked sandbox: true; the request is no ticket for support', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const real = await givenLiveRelease(h, label.id);
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const copies = json(await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })) as {
    releases: Array<{ id: number }>;
  };
  const copy = copies.releases[0];
  assert.ok(copy);

  const response = await requestTakedown(h, sandboxKey, copy.id, { reason: 'testing' });
  assert.equal(response.statusCode, 201);
  assert.equal(response.headers['x-sandbox'], 'true');
  const created = json(response) as { request: { id: number } };
  assert.deepEqual(created, {
    request: { id: created.request.id, type: 'takedown', status: 'pending', created_at: NOW, sandbox: true },
  });
  const again = await requestTakedown(h, sandboxKey, copy.id);
  assert.equal(again.statusCode, 409);
  assert.deepEqual(json(again), {
    error: `A takedown request for release ${copy.id} is already pending`,
    code: 'conflict',
    request_id: created.request.id,
  });
  const realFromSandbox = await requestTakedown(h, sandboxKey, real.id);
  assert.equal(realFromSandbox.statusCode, 404, 'the real release is out of the sandbox key’s reach');

  // Kept in the sandbox workspace, where support's listings and approvals do not look.
  const [stored] = await storedRequests(h);
  assert.notEqual(stored?.label_id, label.id);
  await assert.rejects(approveTakedown(h.ctx, created.request.id), {
    code: 'conflict',
    message: `Support request ${created.request.id} was made with a sandbox key: it is no ticket`,
  });

  // The label's own request for the real release is not held up by the sandbox's.
  const own = await requestTakedown(h, key, real.id);
  assert.equal(own.statusCode, 201);
});

test('approval (the CLI path) orders the takedown; the distributor takes the release down everywhere', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenLiveRelease(h, label.id);
  const created = json(await requestTakedown(h, key, release.id, { reason: 'Rights expired' })) as {
    request: { id: number };
  };
  const requestId = created.request.id;

  h.clock.advance(60_000);
  const approvedAt = h.clock.now().toISOString();
  const approved = await approveTakedown(h.ctx, requestId);
  assert.deepEqual(approved, {
    request: {
      id: requestId,
      label_id: label.id,
      type: 'takedown',
      status: 'approved',
      release_id: release.id,
      message: 'Rights expired',
      reply: TAKEDOWN_APPROVED_REPLY,
      dsps: null,
      created_at: NOW,
      updated_at: approvedAt,
    },
    release: { id: release.id, title: 'Night Drive', status: 'live', upc: UPC },
  });
  await assert.rejects(approveTakedown(h.ctx, requestId), {
    code: 'conflict',
    message: `Takedown request ${requestId} is already approved`,
  });

  // Nothing changes on the platforms until the distributor reports.
  const worker = takedownWorker(h);
  await worker.drain();
  const card = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })) as {
    release: { status: string; dsp_statuses: Array<{ stage: string }> };
  };
  assert.equal(card.release.status, 'live');
  assert.deepEqual(new Set(card.release.dsp_statuses.map((status) => status.stage)), new Set(['live']));

  h.clock.advance(h.ctx.config.distributorStepMs);
  const reportedAt = h.clock.now().toISOString();
  await worker.drain();

  const after = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })) as {
    release: { status: string; store_links: Record<string, string> };
  };
  assert.deepEqual([after.release.status, after.release.store_links], ['takedown', {}]);
  const dsp = await call(h, 'GET', `/api/v1/releases/${release.id}/dsp-status`, { key });
  assert.deepEqual(json(dsp), {
    release_id: release.id,
    dsp_statuses: [...PLATFORM_KEYS].sort().map((name) => ({
      dsp: name,
      stage: 'taken_down',
      detail: 'Removed at the label’s request',
      updated_at: reportedAt,
    })),
  });

  const feed = json(await call(h, 'GET', '/api/v1/events', { key })) as {
    events: Array<{ id: number; event: string; created_at: string; data: unknown }>;
  };
  const eventRelease = (status: string) => ({
    id: release.id,
    title: 'Night Drive',
    type: 'single',
    status,
    upc: UPC,
    release_date: '2026-06-01',
    artist: { id: release.artist_id, name: 'Mira Vale' },
  });
  assert.deepEqual(
    feed.events.map(({ event, created_at, data }) => ({ event, created_at, data })),
    [
      {
        event: 'support.replied',
        created_at: approvedAt,
        data: {
          request: { id: requestId, type: 'takedown', status: 'approved', reply: TAKEDOWN_APPROVED_REPLY },
        },
      },
      // The release is live while any platform still is: it becomes `takedown` with the last report.
      ...PLATFORM_KEYS.map((name, index) => ({
        event: 'release.dsp_status',
        created_at: reportedAt,
        data: {
          release: eventRelease(index === PLATFORM_KEYS.length - 1 ? 'takedown' : 'live'),
          dsp: name,
          stage: 'taken_down',
          detail: 'Removed at the label’s request',
        },
      })),
    ],
  );

  const done = await h.ctx.db
    .selectFrom('support_requests')
    .select('status')
    .where('id', '=', requestId)
    .execute();
  assert.deepEqual(done, [{ status: 'completed' }], 'the request is closed once the release is down');
  const refused = await requestTakedown(h, key, release.id);
  assert.equal(refused.statusCode, 409, 'the release is down now');
});

test('approval refuses what is not a pending takedown of a release at the distributor', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenLiveRelease(h, label.id);
  const message = await h.ctx.db
    .insertInto('support_requests')
    .values({
      label_id: label.id,
      type: 'message',
      status: 'pending',
      message: 'Where is my money?',
      release_id: null,
      reply: null,
      dsps: null,
      created_at: NOW,
      updated_at: NOW,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const created = json(await requestTakedown(h, key, release.id)) as { request: { id: number } };
  // The release was taken down another way (a distributor report) before support got to it.
  await h.ctx.db.updateTable('releases').set({ status: 'takedown' }).where('id', '=', release.id).execute();

  const cases = [
    [999_999, 'not_found', 'Support request 999999 not found'],
    [message.id, 'conflict', `Support request ${message.id} is a message request, not a takedown request`],
    [created.request.id, 'conflict', `Release ${release.id} is already taken down from every platform`],
  ] as const;
  for (const [id, code, text] of cases) {
    await assert.rejects(approveTakedown(h.ctx, id), { code, message: text });
  }
  const [, stillPending] = await storedRequests(h);
  assert.deepEqual(
    [stillPending?.status, stillPending?.reply],
    ['pending', null],
    'a refusal changes nothing',
  );
  const events = await h.ctx.db.selectFrom('events').select('event').execute();
  assert.deepEqual(events, []);
});

test('a takedown naming platforms removes the release from those only; it stays live, and a later one ends it', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenLiveRelease(h, label.id);
  const created = json(await requestTakedown(h, key, release.id, { dsps: ['deezer', 'spotify'] })) as {
    request: { id: number };
  };
  const listed = json(await call(h, 'GET', '/api/v1/support/requests', { key })) as {
    requests: Array<{ id: number; dsps: string[] | null }>;
  };
  assert.deepEqual(
    listed.requests.map(({ id, dsps }) => ({ id, dsps })),
    [{ id: created.request.id, dsps: ['spotify', 'deezer'] }],
    'kept in the platforms’ order',
  );

  const approved = await approveTakedown(h.ctx, created.request.id);
  assert.equal(
    approved.request.reply,
    'Takedown approved: the release is being removed from Spotify, Deezer',
  );
  const worker = takedownWorker(h);
  h.clock.advance(h.ctx.config.distributorStepMs);
  await worker.drain();

  const stagesOf = async () => {
    const dsp = json(await call(h, 'GET', `/api/v1/releases/${release.id}/dsp-status`, { key })) as {
      dsp_statuses: Array<{ dsp: string; stage: string }>;
    };
    return Object.fromEntries(dsp.dsp_statuses.map(({ dsp: name, stage }) => [name, stage]));
  };
  assert.deepEqual(
    await stagesOf(),
    Object.fromEntries(
      PLATFORM_KEYS.map((dsp) => [dsp, dsp === 'spotify' || dsp === 'deezer' ? 'taken_down' : 'live']),
    ),
  );
  const card = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })) as {
    release: { status: string; store_links: Record<string, string> };
  };
  assert.equal(card.release.status, 'live', 'live while other platforms have it');
  assert.deepEqual(
    Object.keys(card.release.store_links).sort(),
    PLATFORM_KEYS.filter((dsp) => dsp !== 'spotify' && dsp !== 'deezer').sort(),
  );
  const statusOf = async (id: number) =>
    (
      json(await call(h, 'GET', '/api/v1/support/requests', { key })) as {
        requests: Array<{ id: number; status: string }>;
      }
    ).requests.find((request) => request.id === id)?.status;
  assert.equal(await statusOf(created.request.id), 'completed', 'done once its platforms are down');

  const again = await requestTakedown(h, key, release.id, { dsps: ['spotify'] });
  assert.equal(again.statusCode, 400);
  assert.deepEqual(json(again), {
    error: `Release ${release.id} is already taken down from Spotify`,
    code: 'invalid',
    field: 'dsps',
  });

  const rest = json(await requestTakedown(h, key, release.id)) as { request: { id: number } };
  await approveTakedown(h.ctx, rest.request.id);
  h.clock.advance(h.ctx.config.distributorStepMs);
  await worker.drain();
  assert.deepEqual(await stagesOf(), Object.fromEntries(PLATFORM_KEYS.map((dsp) => [dsp, 'taken_down'])));
  const after = json(await call(h, 'GET', `/api/v1/releases/${release.id}`, { key })) as {
    release: { status: string };
  };
  assert.equal(after.release.status, 'takedown');
  assert.equal(await statusOf(rest.request.id), 'completed');
});

test('dsps: unknown, empty or repeated platforms are refused with field "dsps", and nothing is stored', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenLiveRelease(h, label.id);
  for (const dsps of [['myspace'], [], ['spotify', 'spotify'], 'spotify']) {
    const refused = await requestTakedown(h, key, release.id, { dsps });
    assert.equal(refused.statusCode, 400, JSON.stringify(dsps));
    const body = json(refused) as { error: string; code: string; field?: string };
    assert.equal(body.code, 'invalid', JSON.stringify(body));
    assert.match(body.field ?? '', /^dsps/, JSON.stringify(body));
  }
  const unknown = json(await requestTakedown(h, key, release.id, { dsps: ['myspace'] }));
  assert.deepEqual(unknown, {
    error: '"myspace" is not a platform key; GET /platforms lists them',
    code: 'invalid',
    field: 'dsps',
  });
  assert.deepEqual(await storedRequests(h), []);
});
