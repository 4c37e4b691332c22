import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { pruneReportSignatures } from '../../src/modules/distributor/distributor.signature.ts';
import { givenRelease } from '../helpers/catalog.ts';
import { buildHarness, call, givenKey, givenLabel, type Harness, json } from '../helpers/harness.ts';

const SECRET = 'distributor-inbound-test-secret-0123456789';
const PATH = '/distributor/v1/reports';
const START = '2026-03-02T10:00:00.000Z';
const UPC = '036000291452';

function sign(body: string, t: number | string, secret = SECRET): string {
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

function unixNow(h: Harness): number {
  return Math.floor(h.clock.now().getTime() / 1000);
}

/** POSTs `body` (a string is sent byte for byte) signed now, unless `signature` says otherwise. */
function postReports(
  h: Harness,
  body: unknown,
  options: { signature?: string | null; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = options.signature === undefined ? sign(text, unixNow(h)) : options.signature;
  return call(h, 'POST', PATH, {
    headers: {
      'content-type': 'application/json',
      ...(signature !== null && { 'x-distributor-signature': signature }),
    },
    payload: text,
    ...(options.remoteAddress && { remoteAddress: options.remoteAddress }),
  });
}

interface Scene {
  h: Harness;
  key: string;
  labelId: number;
  releaseId: number;
  artistId: number;
}

/** A label with a key and one release at the distributor (moderation approved it). */
async function scene(
  t: Parameters<typeof buildHarness>[0],
  env = { DISTRIBUTOR_SECRET: SECRET },
): Promise<Scene> {
  const h = await buildHarness(t, { env });
  const label = await givenLabel(h, { contractSigned: true });
  const key = await givenKey(h, label.id);
  const release = await givenRelease(h, label.id, { status: 'submitted', upc: UPC, submitted_at: START });
  return { h, key, labelId: label.id, releaseId: release.id, artistId: release.artist_id };
}

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

async function getJson(s: Scene, url: string): Promise<unknown> {
  const response = await call(s.h, 'GET', url, { key: s.key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response);
}

async function dspStatuses(s: Scene, releaseId = s.releaseId): Promise<unknown> {
  return getJson(s, `/api/v1/releases/${releaseId}/dsp-status`);
}

async function events(s: Scene): Promise<Array<{ event: string; data: unknown }>> {
  const feed = (await getJson(s, '/api/v1/events')) as { events: Array<{ event: string; data: unknown }> };
  return feed.events.map(({ event, data }) => ({ event, data }));
}

async function releaseCard(s: Scene, releaseId = s.releaseId) {
  const body = (await getJson(s, `/api/v1/releases/${releaseId}`)) as {
    release: { status: string; store_links: Record<string, string> };
  };
  return { status: body.release.status, store_links: body.release.store_links };
}

function assertError(response: LightMyRequestResponse, status: number, body: Record<string, unknown>): void {
  assert.deepEqual({ status: response.statusCode, body: json(response) }, { status, body });
}

async function assertUntouched(s: Scene): Promise<void> {
  assert.deepEqual(await dspStatuses(s), { release_id: s.releaseId, dsp_statuses: [] });
  assert.deepEqual(await events(s), []);
  assert.deepEqual(await releaseCard(s), { status: 'submitted', store_links: {} });
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

test('the signature covers the exact bytes: formatted JSON with non-ASCII text verifies', async (t) => {
  const s = await scene(t);
  const body = `{\n  "reports": [\n    { "release_id": ${s.releaseId}, "dsp": "deezer", "stage": "rejected", "detail": "Pochette refusée — trop petite" }\n  ]\n}\n`;
  const response = await postReports(s.h, body);
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(await dspStatuses(s), {
    release_id: s.releaseId,
    dsp_statuses: [
      { dsp: 'deezer', stage: 'rejected', detail: 'Pochette refusée — trop petite', updated_at: START },
    ],
  });
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

test('without DISTRIBUTOR_SECRET the endpoint answers 404, signed or not', async (t) => {
  const s = await scene(t, { DISTRIBUTOR_SECRET: '' });
  const body = { reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'live' }] };
  const notEnabled = {
    error:
      'Inbound distributor reports are not enabled on this server: the operator sets DISTRIBUTOR_SECRET to open them',
    code: 'not_found',
  };
  assertError(await postReports(s.h, body), 404, notEnabled);
  assertError(await postReports(s.h, body, { signature: null }), 404, notEnabled);
  await assertUntouched(s);
});

test('a missing, malformed or wrong signature is refused with 401 and changes nothing', async (t) => {
  const s = await scene(t);
  const body = JSON.stringify({ reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'live' }] });
  const now = unixNow(s.h);
  const malformed = {
    error: 'X-Distributor-Signature must be t=<unix seconds>,v1=<64 hex characters>',
    code: 'unauthorized',
  };
  const mismatch = {
    error: 'The signature does not match the body: sign t, a dot and the exact body bytes',
    code: 'unauthorized',
  };
  assertError(await postReports(s.h, body, { signature: null }), 401, {
    error: 'Sign the request: X-Distributor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>',
    code: 'unauthorized',
  });
  const good = sign(body, now);
  for (const signature of [
    '',
    `v1=${good.split('v1=')[1]}`,
    `t=${now},v1=abc`,
    `t=${now},v1=${'g'.repeat(64)}`,
    `t=-${now},v1=${good.split('v1=')[1]}`,
    ` ${good}`,
    `${good},v1=${'0'.repeat(64)}`,
  ]) {
    assertError(await postReports(s.h, body, { signature }), 401, malformed);
  }
  // Another secret; the body changed after signing; the stamp changed after signing.
  assertError(await postReports(s.h, body, { signature: sign(body, now, `${SECRET}-other`) }), 401, mismatch);
  assertError(await postReports(s.h, `${body} `, { signature: good }), 401, mismatch);
  assertError(
    await postReports(s.h, body, { signature: good.replace(`t=${now}`, `t=${now - 1}`) }),
    401,
    mismatch,
  );
  // An unsigned request never gets as far as its JSON.
  assertError(await postReports(s.h, '{not json', { signature: sign(body, now) }), 401, mismatch);
  await assertUntouched(s);
});

test('a stamp more than 300 seconds old or ahead of the clock is refused', async (t) => {
  const s = await scene(t);
  const body = JSON.stringify({ reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'submitted' }] });
  const signature = sign(body, unixNow(s.h));
  s.h.clock.advance(301_000);
  assertError(await postReports(s.h, body, { signature }), 401, {
    error:
      'The signature is stale: t is more than 300 seconds old; sign the request again with the current time',
    code: 'unauthorized',
  });
  s.h.clock.advance(-602_000);
  assertError(await postReports(s.h, body, { signature }), 401, {
    error:
      "The signature is from the future: t is more than 300 seconds ahead of the server's clock (t is in unix seconds)",
    code: 'unauthorized',
  });
  await assertUntouched(s);
  // Within the tolerance either way it is accepted.
  s.h.clock.advance(2_000);
  const accepted = await postReports(s.h, body, { signature });
  assert.equal(accepted.statusCode, 200, accepted.body);
});

test('a replayed signature is refused with 409, even after the stage moved on', async (t) => {
  const s = await scene(t);
  const body = JSON.stringify({ reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'submitted' }] });
  const signature = sign(body, unixNow(s.h));
  assert.equal((await postReports(s.h, body, { signature })).statusCode, 200);
  s.h.clock.advance(10_000);
  assertError(await postReports(s.h, body, { signature }), 409, {
    error: 'These reports were already applied: a signature is accepted once; sign a new request',
    code: 'conflict',
  });
  // The same reports under a fresh signature are a plain repeat: nothing changes, nothing is sent.
  const again = await postReports(s.h, body);
  assert.deepEqual(json(again), {
    ok: true,
    applied: [
      {
        release_id: s.releaseId,
        dsp: 'spotify',
        stage: 'submitted',
        changed: false,
        release_status: 'submitted',
      },
    ],
  });
  assert.equal((await events(s)).length, 1);
});

test('pruning forgets signatures only once they are outside the tolerance', async (t) => {
  const s = await scene(t);
  const response = await postReports(s.h, {
    reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'submitted' }],
  });
  assert.equal(response.statusCode, 200);
  s.h.clock.advance(600_000);
  assert.equal(await pruneReportSignatures(s.h.ctx), 0);
  s.h.clock.advance(61_000);
  assert.equal(await pruneReportSignatures(s.h.ctx), 1);
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

test('the endpoint takes JSON only, and at most 120 requests a minute from one address', async (t) => {
  const s = await scene(t);
  const text = 'reports=1';
  const response = await call(s.h, 'POST', PATH, {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-distributor-signature': sign(text, unixNow(s.h)),
    },
    payload: text,
  });
  assertError(response, 415, {
    error: 'Content type application/x-www-form-urlencoded is not accepted here',
    code: 'unsupported_media_type',
  });
  for (let i = 0; i < 120; i++) {
    const unsigned = await postReports(s.h, '{}', { signature: null, remoteAddress: '203.0.113.9' });
    assert.equal(unsigned.statusCode, 401);
  }
  const limited = await postReports(s.h, '{}', { signature: null, remoteAddress: '203.0.113.9' });
  assertError(limited, 429, { error: 'Too many requests', code: 'rate_limited' });
  assert.ok(Number(limited.headers['retry-after']) > 0);
  const elsewhere = await postReports(s.h, {
    reports: [{ release_id: s.releaseId, dsp: 'spotify', stage: 'live' }],
  });
  assert.equal(elsewhere.statusCode, 200, elsewhere.body);
});
