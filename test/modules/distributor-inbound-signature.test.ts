import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pruneReportSignatures } from '../../src/modules/distributor/distributor.signature.ts';
import {
  assertError,
  assertUntouched,
  dspStatuses,
  events,
  PATH,
  postReports,
  SECRET,
  START,
  scene,
  sign,
  unixNow,
} from '../helpers/distributor-reports.ts';
import { call, json } from '../helpers/harness.ts';

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
