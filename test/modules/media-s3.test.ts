import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { createBackground } from '../../src/background.ts';
import { keepUpload } from '../../src/modules/media/media.cleanup.ts';
import { mediaObjects } from '../../src/modules/media/media.objects.ts';
import { receiveToTemp } from '../../src/modules/media/media.storage.ts';
import { STEREO_CD } from '../helpers/audio.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';
import { lowPassed, stereoWav } from '../helpers/moderation.ts';
import { card, coverPng, givenDraft, noiseWav, submit } from '../helpers/pipeline.ts';
import { bucketKeys, type S3Server, startS3Server } from '../helpers/s3.ts';
import { givenWorker } from '../helpers/webhooks.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const coverKey = (bytes: Buffer, ext = 'png') =>
  `media/covers/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}.${ext}`;
const audioKey = (bytes: Buffer) => `media/audio/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}.wav`;

interface S3Setup {
  h: Harness;
  s3: S3Server;
  key: string;
}

async function setup(t: TestContext): Promise<S3Setup> {
  const s3 = await startS3Server();
  t.after(() => s3.close());
  const h = await buildHarness(t, { env: { ...s3.env, DISTRIBUTOR_REJECT_RATE: '0' } });
  const { key } = await givenCaller(h);
  return { h, s3, key };
}

function putCover(s: S3Setup, releaseId: number, bytes: Buffer) {
  return call(s.h, 'PUT', `/api/v1/releases/${releaseId}/cover`, {
    key: s.key,
    headers: { 'content-type': 'image/png' },
    payload: bytes,
  });
}

/** Nothing of the media stays on the server's disk: the temp folder is empty when it exists. */
function assertNothingLocal(h: Harness): void {
  const media = join(h.dataDir, 'media');
  if (!existsSync(media)) return;
  assert.deepEqual(readdirSync(media), ['tmp']);
  assert.deepEqual(readdirSync(join(media, 'tmp')), []);
}

test('with MEDIA_URL=s3://… a cover goes into the bucket and is served and resized from it', async (t) => {
  const s = await setup(t);
  const { releaseId } = await givenDraft(s.h, s.key, { tracks: [], cover: false });
  const bytes = await coverPng(1600);
  const put = await putCover(s, releaseId, bytes);
  assert.equal(put.statusCode, 200, put.body);
  assert.deepEqual(await bucketKeys(s.s3), [coverKey(bytes)]);
  assertNothingLocal(s.h);

  const url = `/media/covers/${sha256(bytes)}.png`;
  const served = await call(s.h, 'GET', url);
  assert.equal(served.statusCode, 200);
  assert.ok(served.rawPayload.equals(bytes), 'byte-identical');
  assert.equal(served.headers['content-length'], String(bytes.length));
  assert.equal(served.headers['content-type'], 'image/png');

  const resized = await call(s.h, 'GET', `${url}?w=300`);
  assert.equal(resized.statusCode, 200);
  assert.equal((await sharp(resized.rawPayload).metadata()).width, 300);
  const variant = `media/covers/w300/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}.png`;
  assert.deepEqual(await bucketKeys(s.s3), [coverKey(bytes), variant]);
  const again = await call(s.h, 'GET', `${url}?w=300`);
  assert.ok(again.rawPayload.equals(resized.rawPayload), 'served from the bucket after');
  const unenlarged = await call(s.h, 'GET', `${url}?w=2000`);
  assert.ok(unenlarged.rawPayload.equals(bytes), 'a cover is never enlarged');
  assertNothingLocal(s.h);
});

test('tracks uploaded into the bucket are moderated from it: a full-band master passes, a low-passed one is a lossy source', async (t) => {
  const s = await setup(t);
  const { worker } = givenWorker(t, s.h, {});
  const master = noiseWav(STEREO_CD, 7);
  const clean = await givenDraft(s.h, s.key, { tracks: [{ title: 'Night Drive', audio: master }] });
  assert.ok((await bucketKeys(s.s3)).includes(audioKey(master)));
  assertNothingLocal(s.h);
  assert.equal((await submit(s.h, s.key, clean.releaseId)).statusCode, 202);
  await worker.drain();
  const approved = await card(s.h, s.key, clean.releaseId);
  assert.equal(approved.review_status, 'approved', String(approved.review_comment));

  const decodedMp3 = stereoWav(lowPassed(41, 15_050));
  const lossy = await givenDraft(s.h, s.key, {
    title: 'Coastline',
    tracks: [{ title: 'Coastline', audio: decodedMp3 }],
  });
  assert.equal((await submit(s.h, s.key, lossy.releaseId)).statusCode, 202);
  await worker.drain();
  const rejected = await card(s.h, s.key, lossy.releaseId);
  assert.equal(rejected.review_status, 'rejected');
  assert.match(String(rejected.review_comment), /lossless master/);
  assertNothingLocal(s.h);
});

test('replaced and deleted media leave the bucket; refused and failed uploads never reach it', async (t) => {
  const s = await setup(t);
  const audio = noiseWav(STEREO_CD, 3);
  const { releaseId } = await givenDraft(s.h, s.key, { tracks: [{ title: 'One', audio }], cover: false });
  const first = await coverPng(1500);
  const second = await coverPng(1400);
  assert.equal((await putCover(s, releaseId, first)).statusCode, 200);
  assert.equal((await call(s.h, 'GET', `/media/covers/${sha256(first)}.png?w=300`)).statusCode, 200);
  assert.equal((await putCover(s, releaseId, second)).statusCode, 200);
  assert.deepEqual(
    await bucketKeys(s.s3),
    [audioKey(audio), coverKey(second)].sort(),
    'old cover and variant gone',
  );

  const small = await coverPng(1000);
  const refused = await putCover(s, releaseId, small);
  assert.equal(refused.statusCode, 400);
  const failing = await receiveToTemp(
    mediaObjects(s.h.ctx.config).tempDir,
    Readable.from([await coverPng(1700)]),
    20_000_000,
    'The cover',
  );
  await assert.rejects(
    keepUpload(s.h.ctx, 'covers', failing, 'png', async () => {
      throw new Error('the release was submitted meanwhile');
    }),
  );
  assert.deepEqual(await bucketKeys(s.s3), [audioKey(audio), coverKey(second)].sort());

  const deleted = await call(s.h, 'DELETE', `/api/v1/releases/${releaseId}`, { key: s.key });
  assert.deepEqual([deleted.statusCode, json(deleted)], [200, { ok: true }]);
  assert.deepEqual(await bucketKeys(s.s3), []);
  assertNothingLocal(s.h);
});

test("an object another process's upload holds is kept, and collected by the job once that hold has run out", async (t) => {
  const s = await setup(t);
  const { releaseId } = await givenDraft(s.h, s.key, { tracks: [], cover: false });
  const bytes = await coverPng(1400);
  assert.equal((await putCover(s, releaseId, bytes)).statusCode, 200);
  // Another server is between putting the same image and committing its row, and then dies.
  const heldUntil = new Date(s.h.clock.now().getTime() + 60 * 60 * 1000).toISOString();
  await s.h.ctx.db
    .insertInto('media_locks')
    .values({
      object_key: `covers/${sha256(bytes)}`,
      holders: 1,
      held_until: heldUntil,
      collecting_until: null,
    })
    .execute();

  assert.equal((await call(s.h, 'DELETE', `/api/v1/releases/${releaseId}`, { key: s.key })).statusCode, 200);
  assert.deepEqual(await bucketKeys(s.s3), [coverKey(bytes)], 'kept while the other upload may refer to it');

  const background = createBackground(s.h.ctx);
  t.after(() => background.close());
  await background.worker.drain();
  assert.deepEqual(await bucketKeys(s.s3), [coverKey(bytes)], 'the hold still counts');
  s.h.clock.advance(61 * 60 * 1000);
  await background.worker.drain();
  assert.deepEqual(await bucketKeys(s.s3), []);
  assert.deepEqual(await s.h.ctx.db.selectFrom('media_locks').selectAll().execute(), []);
});

test('an upload of content another process is removing waits for the removal, then puts it back', async (t) => {
  const s = await setup(t);
  const { releaseId } = await givenDraft(s.h, s.key, { tracks: [], cover: false });
  const bytes = await coverPng(1400);
  const lockKey = `covers/${sha256(bytes)}`;
  const until = new Date(s.h.clock.now().getTime() + 2 * 60 * 1000).toISOString();
  await s.h.ctx.db
    .insertInto('media_locks')
    .values({ object_key: lockKey, holders: 0, held_until: until, collecting_until: until })
    .execute();

  let answered = false;
  const upload = putCover(s, releaseId, bytes).finally(() => {
    answered = true;
  });
  await sleep(300);
  assert.equal(answered, false, 'waits while the other process removes the object');
  await s.h.ctx.db.deleteFrom('media_locks').where('object_key', '=', lockKey).execute();
  assert.equal((await upload).statusCode, 200);
  assert.deepEqual(await bucketKeys(s.s3), [coverKey(bytes)]);
  assert.equal((await call(s.h, 'GET', `/media/covers/${sha256(bytes)}.png`)).statusCode, 200);
});
