import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ean13 } from '../../src/lib/gtin.ts';
import { composeIsrc } from '../../src/lib/isrc.ts';
import { decide } from '../../src/modules/moderation/moderation.service.ts';
import { givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, json } from '../helpers/harness.ts';
import { card, feed, givenDraft, submit } from '../helpers/pipeline.ts';

test('submit refuses what is not ready: 400 with the first field and every problem; 428 without a contract; 409 unless a draft', async (t) => {
  const h = await buildHarness(t);
  const { key, label } = await givenCaller(h);
  const empty = await givenDraft(h, key, { cover: false, tracks: [] });
  const notReady = await submit(h, key, empty.releaseId, { confirm_rights: false });
  assert.equal(notReady.statusCode, 400);
  assert.deepEqual(json(notReady), {
    error:
      'The release is not ready to submit: The release has no cover; upload a square JPEG or PNG image of at least 1400 x 1400 px.',
    code: 'invalid',
    field: 'cover',
    problems: [
      {
        code: 'cover_missing',
        severity: 'error',
        field: 'cover',
        message: 'The release has no cover; upload a square JPEG or PNG image of at least 1400 x 1400 px.',
        track_id: null,
      },
      {
        code: 'tracks_missing',
        severity: 'error',
        field: 'tracks',
        message: 'The release has no tracks; add at least one.',
        track_id: null,
      },
      {
        code: 'rights_not_confirmed',
        severity: 'error',
        field: 'confirm_rights',
        message:
          'confirm_rights must be true: confirm the label holds the rights to distribute this release.',
        track_id: null,
      },
    ],
  });

  // The API refuses a track without audio and a fourth track on a single; rows written before
  // those rules (or by an operator) must still be caught at submission.
  const incomplete = await givenDraft(h, key, { type: 'single', tracks: [] });
  const ids: number[] = [];
  for (const number of [1, 2, 3, 4]) {
    const track = await givenTrack(h, label.id, incomplete.releaseId, {
      number,
      title: `Take ${number}`,
      contributors: number === 1 ? '[]' : '[{"name":"Ari Lund","role":"Producer"}]',
    });
    ids.push(track.id);
  }
  const problems = json(await submit(h, key, incomplete.releaseId)) as { field: string; problems: unknown[] };
  assert.equal(problems.field, 'tracks');
  const noAudio = (index: number) => ({
    code: 'audio_missing',
    severity: 'error',
    field: `tracks.${index}.audio`,
    message: `Track ${index + 1} has no audio; upload a WAV or FLAC file.`,
    track_id: ids[index],
  });
  assert.deepEqual(problems.problems, [
    {
      code: 'single_too_many_tracks',
      severity: 'error',
      field: 'tracks',
      message: 'A single has at most 3 tracks (this one has 4); remove tracks or make it an EP.',
      track_id: null,
    },
    {
      code: 'contributors_missing',
      severity: 'error',
      field: 'tracks.0.contributors',
      message: 'Track 1 lists no contributors; add at least one (for example the performer or the producer).',
      track_id: ids[0],
    },
    noAudio(0),
    noAudio(1),
    noAudio(2),
    noAudio(3),
  ]);

  const missingBody = await call(h, 'POST', `/api/v1/releases/${empty.releaseId}/submit`, {
    key,
    payload: {},
  });
  assert.equal(missingBody.statusCode, 400);
  assert.equal((json(missingBody) as { field: string }).field, 'confirm_rights');

  const ready = await givenDraft(h, key);
  await h.ctx.db.updateTable('labels').set({ contract_signed: 0 }).where('id', '=', label.id).execute();
  const noContract = await submit(h, key, ready.releaseId);
  assert.equal(noContract.statusCode, 428);
  assert.deepEqual(json(noContract), {
    error: 'The label has no signed distribution contract: sign it before submitting releases',
    code: 'contract_required',
  });
  assert.equal((await card(h, key, ready.releaseId)).status, 'draft');

  await h.ctx.db.updateTable('labels').set({ contract_signed: 1 }).where('id', '=', label.id).execute();
  assert.equal((await submit(h, key, ready.releaseId)).statusCode, 202);
  const again = await submit(h, key, ready.releaseId);
  assert.equal(again.statusCode, 409);
  assert.deepEqual(json(again), {
    error: 'Only a draft can be submitted (this release is submitting)',
    code: 'conflict',
  });
  assert.deepEqual(await feed(h, key).then((events) => events.map((event) => event.event)), [
    'release.review_pending',
  ]);
});

test('submit needs releases:submit; another label’s release is 404', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { key: writer } = await givenCaller(h, { scopes: ['catalog:write', 'catalog:read'] });
  const { releaseId } = await givenDraft(h, key);
  const forbidden = await submit(h, writer, releaseId);
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(json(forbidden), {
    error: 'This key lacks the scope releases:submit',
    code: 'forbidden',
    required_scope: 'releases:submit',
  });
  const { key: other } = await givenCaller(h);
  const missing = await submit(h, other, releaseId);
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(json(missing), { error: 'Release not found', code: 'not_found' });
});

test('while in moderation: track metadata and audio may change; the release, its cover and its track list may not', async (t) => {
  const h = await buildHarness(t, { env: { MODERATION: 'manual' } });
  const { key } = await givenCaller(h);
  const { releaseId, trackIds } = await givenDraft(h, key);
  assert.equal((await submit(h, key, releaseId)).statusCode, 202);
  const path = `/api/v1/releases/${releaseId}`;

  const patchTrack = await call(h, 'PATCH', `${path}/tracks/${trackIds[0]}`, {
    key,
    payload: { title: 'Night Drive (Edit)' },
  });
  assert.equal(patchTrack.statusCode, 200, patchTrack.body);
  const refusals = await Promise.all([
    call(h, 'PATCH', path, { key, payload: { title: 'Other' } }),
    call(h, 'DELETE', `${path}/tracks/${trackIds[1]}`, { key }),
    call(h, 'DELETE', path, { key }),
  ]);
  assert.deepEqual(
    refusals.map((response) => [response.statusCode, (json(response) as { code: string }).code]),
    [
      [409, 'conflict'],
      [409, 'conflict'],
      [409, 'conflict'],
    ],
  );
  const waiting = await card(h, key, releaseId);
  assert.equal(waiting.status, 'submitting');
  assert.equal(waiting.title, 'Night Drive');
  assert.equal(waiting.tracks.length, 2);
});

test('assigned UPCs and ISRCs are unique: numbers a label typed in by hand are skipped; given ones are kept', async (t) => {
  const h = await buildHarness(t, { env: { MODERATION: 'manual' } });
  const { key } = await givenCaller(h);
  const { key: otherKey } = await givenCaller(h);
  const typed = await givenDraft(h, otherKey);
  const firstAssigned = ean13('0860000', 1);
  const patched = await call(h, 'PATCH', `/api/v1/releases/${typed.releaseId}`, {
    key: otherKey,
    payload: { upc: firstAssigned },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  const year = h.clock.now().getUTCFullYear();
  const handIsrc = composeIsrc('US', 'LD0', year, 1);
  const isrcPatch = await call(
    h,
    'PATCH',
    `/api/v1/releases/${typed.releaseId}/tracks/${typed.trackIds[0]}`,
    {
      key: otherKey,
      payload: { isrc: handIsrc },
    },
  );
  assert.equal(isrcPatch.statusCode, 200, isrcPatch.body);

  const a = await givenDraft(h, key);
  const b = await givenDraft(h, key);
  for (const { releaseId } of [a, b]) {
    await submit(h, key, releaseId);
    await decide(h.ctx, releaseId, { approve: true, comment: null });
  }
  const [cardA, cardB] = [await card(h, key, a.releaseId), await card(h, key, b.releaseId)];
  assert.equal(cardA.upc, ean13('0860000', 2));
  assert.equal(cardB.upc, ean13('0860000', 3));
  assert.deepEqual(
    [...cardA.tracks, ...cardB.tracks].map((track) => track.isrc),
    [2, 3, 4, 5].map((n) => composeIsrc('US', 'LD0', year, n)),
  );

  const keeps = await givenDraft(h, key);
  await call(h, 'PATCH', `/api/v1/releases/${keeps.releaseId}`, { key, payload: { upc: '5012345678900' } });
  await submit(h, key, keeps.releaseId);
  await decide(h.ctx, keeps.releaseId, { approve: true, comment: null });
  assert.equal((await card(h, key, keeps.releaseId)).upc, '5012345678900');
});
