import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MONO_22K, multipart, wavFile, wavPart } from '../helpers/audio.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { call, givenCaller, json } from '../helpers/harness.ts';
import {
  assertInvalid,
  assertStored,
  createdTrack,
  type ErrorReply,
  postTrack,
  setup,
} from '../helpers/tracks.ts';

test('a single holds at most three tracks: the fourth is 409 conflict before the upload is read', async (t) => {
  const { h, key, releaseId } = await setup(t, { type: 'single' });
  for (const title of ['One', 'Two', 'Three'])
    await createdTrack(h, key, releaseId, [['title', title], wavPart()]);
  const fourth = await postTrack(h, key, releaseId, [['title', 'Four'], wavPart(wavFile(MONO_22K))]);
  assert.equal(fourth.statusCode, 409);
  assert.equal((json(fourth) as ErrorReply).code, 'conflict');
  await assertStored(h, 1);
});

test('tracks are added to drafts only', async (t) => {
  const { h, key, label, artistId } = await setup(t);
  for (const [status, review] of [
    ['submitting', 'pending'],
    ['submitted', 'approved'],
    ['live', 'approved'],
  ] as const) {
    const release = await givenRelease(h, label.id, { artist_id: artistId, status, review_status: review });
    const response = await postTrack(h, key, release.id, [['title', 'Late'], wavPart()]);
    assert.equal(response.statusCode, 409, status);
    assert.equal((json(response) as ErrorReply).code, 'conflict');
  }
  await assertStored(h, 0);
});

test("another label's release, or a track of another release, is 404; scopes are enforced", async (t) => {
  const { h, key, releaseId, label, artistId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [['title', 'Mine'], wavPart()]);
  const other = await givenCaller(h);
  const otherRelease = await givenRelease(h, other.label.id);
  const sibling = await givenRelease(h, label.id, { artist_id: artistId });
  const paths = [
    ['GET', `/api/v1/releases/${otherRelease.id}/tracks/${track.id}`],
    ['GET', `/api/v1/releases/${sibling.id}/tracks/${track.id}`],
    ['GET', `/api/v1/releases/${releaseId}/tracks/${track.id + 100}`],
  ] as const;
  for (const [method, path] of paths) {
    assert.equal((await call(h, method, path, { key })).statusCode, 404, path);
  }
  assertInvalid(await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/99999999999`, { key }), 'trackId');
  const foreign = `/api/v1/releases/${releaseId}/tracks/${track.id}`;
  assert.equal((await call(h, 'GET', foreign, { key: other.key })).statusCode, 404);
  assert.equal(
    (await call(h, 'PATCH', foreign, { key: other.key, payload: { title: 'x' } })).statusCode,
    404,
  );
  assert.equal((await call(h, 'DELETE', foreign, { key: other.key })).statusCode, 404);
  const wav = multipart([wavPart()]);
  assert.equal((await call(h, 'PUT', `${foreign}/audio`, { key: other.key, ...wav })).statusCode, 404);
  assert.equal((await postTrack(h, other.key, releaseId, [['title', 'x'], wavPart()])).statusCode, 404);
  await assertStored(h, 1);

  const reader = await call(h, 'POST', `/api/v1/releases/${releaseId}/tracks`, {
    key: (await givenCaller(h, { scopes: ['catalog:read'] })).key,
    ...multipart([['title', 'x'], wavPart()]),
  });
  assert.equal(reader.statusCode, 403);
  assert.deepEqual(
    { code: (json(reader) as ErrorReply).code, scope: (json(reader) as ErrorReply).required_scope },
    { code: 'forbidden', scope: 'catalog:write' },
  );
  const writerOnly = await givenCaller(h, { scopes: ['catalog:write'] });
  const read = await call(h, 'GET', `/api/v1/releases/${releaseId}/tracks/${track.id}`, {
    key: writerOnly.key,
  });
  assert.equal(read.statusCode, 403);
  assert.equal((json(read) as ErrorReply).required_scope, 'catalog:read');
});

test('metadata and audio change while draft or waiting for moderation; afterwards 409', async (t) => {
  const { h, key, label, artistId } = await setup(t);
  const cases = [
    ['draft', null, 200],
    ['submitting', 'pending', 200],
    ['submitting', 'approved', 409],
    ['submitted', 'approved', 409],
    ['live', 'approved', 409],
  ] as const;
  for (const [status, review, expected] of cases) {
    const release = await givenRelease(h, label.id, { artist_id: artistId, status, review_status: review });
    const track = await givenTrack(h, label.id, release.id);
    const path = `/api/v1/releases/${release.id}/tracks/${track.id}`;
    const patched = await call(h, 'PATCH', path, { key, payload: { title: 'Renamed' } });
    assert.equal(patched.statusCode, expected, `PATCH ${status}/${review}`);
    const replaced = await call(h, 'PUT', `${path}/audio`, { key, ...multipart([wavPart()]) });
    assert.equal(replaced.statusCode, expected, `PUT audio ${status}/${review}`);
    if (expected === 409) assert.equal((json(replaced) as ErrorReply).code, 'conflict');
  }
  await assertStored(h, 1);
});
