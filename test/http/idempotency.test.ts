import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { Type } from 'typebox';
import { errors } from '../../src/errors.ts';
import { multipart, wavFile, wavPart } from '../helpers/audio.ts';
import { givenRelease } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, json, ManualClock, openTestDatabase } from '../helpers/harness.ts';
import { mediaRoot } from '../helpers/media.ts';

/** A POST route that counts its executions; `gate` lets a test hold an execution open. */
function orderProbe() {
  const state = { executions: 0, gate: Promise.resolve(), failNext: false };
  const extend = (app: FastifyInstance) => {
    app.post(
      '/api/v1/probe/orders',
      {
        config: { access: 'catalog:write' },
        schema: { body: Type.Object({ item: Type.String(), quantity: Type.Optional(Type.Integer()) }) },
      },
      async (request, reply) => {
        state.executions++;
        const number = state.executions;
        await state.gate;
        if (state.failNext) {
          state.failNext = false;
          throw new Error('database fell over');
        }
        const body = request.body as { item: string };
        if (body.item === 'sold-out') throw errors.conflict('Sold out');
        return reply
          .code(201)
          .header('location', `/api/v1/probe/orders/${number}`)
          .send({ order: { number, item: body.item } });
      },
    );
  };
  return { state, extend };
}

/** Starts a request whose execution waits until `release()`; resolves once the handler is running. */
async function startHeldRequest<T>(probe: ReturnType<typeof orderProbe>, send: () => Promise<T>) {
  let release = () => {};
  probe.state.gate = new Promise((resolve) => {
    release = resolve;
  });
  const first = send();
  while (probe.state.executions === 0) await new Promise((resolve) => setImmediate(resolve));
  return { release, first };
}

const post = (
  h: Parameters<typeof call>[0],
  key: string,
  idempotencyKey: string | null,
  payload: Record<string, unknown>,
  url = '/api/v1/probe/orders',
) =>
  call(h, 'POST', url, {
    key,
    payload,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });

test('a repeated Idempotency-Key returns the stored response with Idempotent-Replayed: true', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  const first = await post(h, key, 'order-1', { item: 'vinyl' });
  assert.equal(first.statusCode, 201);
  assert.equal(first.headers['idempotent-replayed'], undefined);

  const again = await post(h, key, 'order-1', { item: 'vinyl' });
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.headers.location, '/api/v1/probe/orders/1');
  assert.match(String(again.headers['content-type']), /^application\/json/);
  assert.deepEqual(json(again), { order: { number: 1, item: 'vinyl' } });
  assert.equal(again.headers['x-api-version'], '1.1.0');
  assert.equal(again.headers['x-ratelimit-remaining'], '118', 'rate headers describe the new request');
  assert.equal(probe.state.executions, 1);

  const withoutKey = await post(h, key, null, { item: 'vinyl' });
  assert.equal(withoutKey.statusCode, 201);
  assert.equal(probe.state.executions, 2);
});

test('the same key with a different body or path is 422 idempotency_mismatch', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  await post(h, key, 'order-1', { item: 'vinyl' });
  const expected = {
    error: 'This Idempotency-Key was used with a different request; use a new key for a new request',
    code: 'idempotency_mismatch',
  };
  const otherBody = await post(h, key, 'order-1', { item: 'cassette' });
  assert.equal(otherBody.statusCode, 422);
  assert.deepEqual(json(otherBody), expected);
  const otherPath = await post(h, key, 'order-1', { item: 'vinyl' }, '/api/v1/probe/orders?gift=1');
  assert.equal(otherPath.statusCode, 422);
  assert.equal(probe.state.executions, 1);
});

test('the key is bound to the API key that used it', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const alice = await givenCaller(h);
  const bob = await givenCaller(h);
  await post(h, alice.key, 'shared-name', { item: 'vinyl' });
  const bobs = await post(h, bob.key, 'shared-name', { item: 'vinyl' });
  assert.equal(bobs.statusCode, 201);
  assert.equal(bobs.headers['idempotent-replayed'], undefined);
  assert.equal(probe.state.executions, 2);
});

test('a concurrent repeat while the first runs is 409 idempotency_in_progress with Retry-After: 1', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  const { release, first } = await startHeldRequest(probe, () => post(h, key, 'slow', { item: 'vinyl' }));
  const second = await post(h, key, 'slow', { item: 'vinyl' });
  assert.equal(second.statusCode, 409);
  assert.equal(second.headers['retry-after'], '1');
  assert.deepEqual(json(second), {
    error: 'A request with this Idempotency-Key is still being processed',
    code: 'idempotency_in_progress',
  });
  release();
  assert.equal((await first).statusCode, 201);
  assert.equal(probe.state.executions, 1);
  assert.equal((await post(h, key, 'slow', { item: 'vinyl' })).headers['idempotent-replayed'], 'true');
});

test('a 5xx is not stored: the retry executes again', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  probe.state.failNext = true;
  assert.equal((await post(h, key, 'flaky', { item: 'vinyl' })).statusCode, 500);
  const retry = await post(h, key, 'flaky', { item: 'vinyl' });
  assert.equal(retry.statusCode, 201);
  assert.equal(retry.headers['idempotent-replayed'], undefined);
  assert.equal(probe.state.executions, 2);
});

test('a 4xx answer is replayed like any other', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  const first = await post(h, key, 'sold', { item: 'sold-out' });
  assert.equal(first.statusCode, 409);
  const again = await post(h, key, 'sold', { item: 'sold-out' });
  assert.equal(again.statusCode, 409);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(again), { error: 'Sold out', code: 'conflict' });
  assert.equal(probe.state.executions, 1);
});

test('a stored response lives 24 hours', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  await post(h, key, 'daily', { item: 'vinyl' });
  h.clock.advance(24 * 3600 * 1000 - 1000);
  assert.equal((await post(h, key, 'daily', { item: 'vinyl' })).headers['idempotent-replayed'], 'true');
  h.clock.advance(2000);
  const fresh = await post(h, key, 'daily', { item: 'cassette' });
  assert.equal(fresh.statusCode, 201);
  assert.equal(fresh.headers['idempotent-replayed'], undefined);
  assert.equal(probe.state.executions, 2);
});

test('an over-long Idempotency-Key is 400 invalid', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  const response = await post(h, key, 'k'.repeat(256), { item: 'vinyl' });
  assert.equal(response.statusCode, 400);
  assert.deepEqual(json(response), {
    error: 'Idempotency-Key must be 1-255 characters',
    code: 'invalid',
    field: 'Idempotency-Key',
  });
  assert.equal(probe.state.executions, 0);
});

test('two servers on one database never execute one key twice', async (t) => {
  const database = await openTestDatabase(t);
  const clock = new ManualClock();
  const probe = orderProbe();
  const a = await buildHarness(t, { database, clock, extend: probe.extend });
  const b = await buildHarness(t, { database, clock, extend: probe.extend });
  const { key } = await givenCaller(a);
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, i) => post(i % 2 === 0 ? a : b, key, 'race', { item: 'vinyl' })),
  );
  assert.equal(probe.state.executions, 1);
  const created = responses.filter((r) => r.statusCode === 201);
  const inProgress = responses.filter((r) => r.statusCode === 409);
  assert.equal(created.length + inProgress.length, 10);
  for (const response of created) assert.deepEqual(json(response), { order: { number: 1, item: 'vinyl' } });
  const replayOnB = await post(b, key, 'race', { item: 'vinyl' });
  assert.equal(replayOnB.headers['idempotent-replayed'], 'true');
});

test('a claim abandoned for 10 minutes is taken over, and the late first run cannot overwrite the new answer', async (t) => {
  const probe = orderProbe();
  const h = await buildHarness(t, { extend: probe.extend });
  const { key } = await givenCaller(h);
  const { release, first } = await startHeldRequest(probe, () => post(h, key, 'stuck', { item: 'vinyl' }));
  h.clock.advance(10 * 60 * 1000 + 1);
  probe.state.gate = Promise.resolve();
  const takeover = await post(h, key, 'stuck', { item: 'vinyl' });
  assert.equal(takeover.statusCode, 201);
  assert.deepEqual(json(takeover), { order: { number: 2, item: 'vinyl' } });
  release();
  assert.deepEqual(json(await first), { order: { number: 1, item: 'vinyl' } });
  const replay = await post(h, key, 'stuck', { item: 'vinyl' });
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(replay), { order: { number: 2, item: 'vinyl' } });
});

/** The same length with one byte changed near the end: what a length-based fingerprint cannot tell. */
function oneByteChanged(bytes: Buffer): Buffer {
  const changed = Buffer.from(bytes);
  const at = changed.length - 10;
  changed[at] = (changed[at] ?? 0) ^ 0xff;
  return changed;
}

const MISMATCH = {
  error: 'This Idempotency-Key was used with a different request; use a new key for a new request',
  code: 'idempotency_mismatch',
};

test('an upload is bound to its content: the same key with another file of the same length is 422, with the same file a replay', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);
  const image = await sharp({
    create: { width: 1400, height: 1400, channels: 3, background: { r: 200, g: 30, b: 60 } },
  })
    .jpeg()
    .toBuffer();
  const putCover = (bytes: Buffer, idempotencyKey: string) =>
    call(h, 'PUT', `/api/v1/releases/${release.id}/cover`, {
      key,
      headers: { 'content-type': 'image/jpeg', 'idempotency-key': idempotencyKey },
      payload: bytes,
    });

  const first = await putCover(image, 'cover-1');
  assert.equal(first.statusCode, 200, first.body);
  const other = await putCover(oneByteChanged(image), 'cover-1');
  assert.equal(other.statusCode, 422);
  assert.deepEqual(json(other), MISMATCH);
  assert.deepEqual(readdirSync(join(mediaRoot(h.dataDir), 'tmp')), [], 'the refused upload is not kept');
  const again = await putCover(image, 'cover-1');
  assert.equal(again.statusCode, 200);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(again), json(first));
});

test('a track upload is bound to its audio and fields: another WAV of the same length is 422, the same one a replay', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id, { type: 'album' });
  const wav = wavFile();
  const postTrack = (audio: Buffer, title: string) =>
    call(h, 'POST', `/api/v1/releases/${release.id}/tracks`, {
      key,
      ...withKey(multipart([['title', title], wavPart(audio)]), 'track-1'),
    });

  const first = await postTrack(wav, 'Night Drive');
  assert.equal(first.statusCode, 201, first.body);
  for (const [audio, title] of [
    [oneByteChanged(wav), 'Night Drive'],
    [wav, 'Night Drivf'],
  ] as const) {
    const refused = await postTrack(audio, title);
    assert.equal(refused.statusCode, 422, title);
    assert.deepEqual(json(refused), MISMATCH);
  }
  const again = await postTrack(wav, 'Night Drive');
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.headers.location, first.headers.location);
  assert.deepEqual(json(again), json(first));
  const tracks = await h.ctx.db.selectFrom('tracks').select('id').execute();
  assert.equal(tracks.length, 1);
  assert.deepEqual(readdirSync(join(mediaRoot(h.dataDir), 'tmp')), []);

  const trackId = (json(first) as { track: { id: number } }).track.id;
  const replaceAudio = (audio: Buffer) =>
    call(h, 'PUT', `/api/v1/releases/${release.id}/tracks/${trackId}/audio`, {
      key,
      headers: { 'content-type': 'audio/wav', 'idempotency-key': 'audio-1' },
      payload: audio,
    });
  const replaced = await replaceAudio(oneByteChanged(wav));
  assert.equal(replaced.statusCode, 200, replaced.body);
  assert.deepEqual(json(await replaceAudio(wav)), MISMATCH);
  const replayed = await replaceAudio(oneByteChanged(wav));
  assert.equal(replayed.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(replayed), json(replaced));
});

function withKey(form: { payload: Buffer; headers: Record<string, string> }, idempotencyKey: string) {
  return { payload: form.payload, headers: { ...form.headers, 'idempotency-key': idempotencyKey } };
}
