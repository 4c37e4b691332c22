import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type TestContext, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { countJobs } from '../../src/jobs/jobs.store.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { DDEX_BATCH_JOB, ddexBatchHandler } from '../../src/modules/distributor/distributor.ddex.ts';
import { SIMULATED_STEP_JOB } from '../../src/modules/distributor/distributor.jobs.ts';
import { objectsAt } from '../../src/modules/media/media.objects.ts';
import { approveTakedown } from '../../src/modules/support/takedown.service.ts';
import { STEREO_CD } from '../helpers/audio.ts';
import {
  assertValidErn,
  child,
  children,
  DDEX_ENV,
  givenApprovedRelease,
  parseXml,
  type XmlObject,
} from '../helpers/ddex.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';
import { noiseWav } from '../helpers/pipeline.ts';
import { bucketKeys, startS3Server } from '../helpers/s3.ts';
import { filesUnder } from '../helpers/tracks.ts';

const SPOTIFY = 'PADPIDA2011072101T';
const DEEZER = 'PADPIDA2099010101X';

function outboxDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'labeldesk-outbox-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function ddexServer(t: TestContext, outboxUrl: string, env: Record<string, string> = {}) {
  const h = await buildHarness(t, {
    env: {
      ...DDEX_ENV,
      ...env,
      DISTRIBUTOR: 'ddex',
      DDEX_OUTBOX_URL: outboxUrl,
      DDEX_PLATFORMS: `spotify=${SPOTIFY},deezer=${DEEZER}`,
    },
  });
  const worker = createWorker(h.ctx, {
    handlers: { [DDEX_BATCH_JOB]: ddexBatchHandler(h.ctx) },
    leaseMs: 30_000,
    onError: (error) => {
      throw error;
    },
  });
  return { h, worker };
}

/** The files a platform's drop holds, relative to the outbox (files on their way in aside). */
async function dropOf(outbox: string, dsp: string): Promise<string[]> {
  return (await filesUnder(join(outbox, dsp))).map((file) => relative(outbox, file)).sort();
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function messageAt(outbox: string, key: string): XmlObject {
  const xml = readFileSync(join(outbox, key), 'utf8');
  assertValidErn(xml);
  return child(parseXml(xml), 'ern:NewReleaseMessage');
}

async function dspStatuses(h: Harness, key: string, releaseId: number) {
  const response = await call(h, 'GET', `/api/v1/releases/${releaseId}/dsp-status`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return (
    json(response) as { dsp_statuses: Array<{ dsp: string; stage: string; detail: string | null }> }
  ).dsp_statuses.map(({ dsp, stage, detail }) => ({ dsp, stage, detail }));
}

test('DISTRIBUTOR=ddex: an approval writes a batch per configured platform, files as the message names them, the marker last', async (t) => {
  const outbox = outboxDir(t);
  const { h, worker } = await ddexServer(t, pathToFileURL(outbox).href);
  const { key } = await givenCaller(h);
  const audio = [noiseWav(STEREO_CD, 21), noiseWav(STEREO_CD, 22)];
  const { releaseId, upc } = await givenApprovedRelease(h, key, {
    type: 'ep',
    tracks: [
      { title: 'Night Drive', audio: audio[0] },
      { title: 'Coastline', audio: audio[1] },
    ],
  });
  assert.equal(await countJobs(h.ctx.db, SIMULATED_STEP_JOB), 0);
  assert.equal(await countJobs(h.ctx.db, DDEX_BATCH_JOB), 2);
  await worker.drain();

  const batchId = h.clock.now().toISOString().replace(/\D/g, '').slice(0, 17);
  for (const [dsp, partyId, name] of [
    ['spotify', SPOTIFY, 'Spotify'],
    ['deezer', DEEZER, 'Deezer'],
  ] as const) {
    const folder = `${dsp}/${batchId}`;
    const release = `${folder}/${upc}`;
    const marker = `${folder}/BatchComplete_${batchId}.xml`;
    assert.deepEqual(
      await dropOf(outbox, dsp),
      [
        marker,
        `${release}/${upc}.xml`,
        `${release}/resources/${upc}.png`,
        `${release}/resources/${upc}_01_001.wav`,
        `${release}/resources/${upc}_01_002.wav`,
      ].sort(),
    );
    assert.equal(readFileSync(join(outbox, marker), 'utf8'), '');
    const written = (await dropOf(outbox, dsp)).filter((file) => file !== marker);
    for (const file of written) {
      assert.ok(statSync(join(outbox, marker)).mtimeMs >= statSync(join(outbox, file)).mtimeMs, file);
    }
    const message = messageAt(outbox, `${release}/${upc}.xml`);
    assert.deepEqual(child(child(message, 'MessageHeader'), 'MessageRecipient'), {
      PartyId: partyId,
      PartyName: { FullName: name },
    });
    const files = children(child(message, 'ResourceList'), 'SoundRecording').map((recording) =>
      child(
        child(child(child(recording, 'SoundRecordingEdition'), 'TechnicalDetails'), 'DeliveryFile'),
        'File',
      ),
    );
    assert.deepEqual(
      files.map((file) => ({
        uri: file.URI,
        hash: child(file, 'HashSum').HashSumValue,
        bytes: sha256(readFileSync(join(outbox, release, String(file.URI)))),
      })),
      audio.map((bytes, index) => ({
        uri: `resources/${upc}_01_00${index + 1}.wav`,
        hash: sha256(bytes),
        bytes: sha256(bytes),
      })),
    );
  }
  assert.deepEqual(await dspStatuses(h, key, releaseId), [
    { dsp: 'deezer', stage: 'submitted', detail: `DDEX batch ${batchId} written` },
    { dsp: 'spotify', stage: 'submitted', detail: `DDEX batch ${batchId} written` },
  ]);
});

test('a takedown writes, for the configured platforms, a message whose deals have ended and no files', async (t) => {
  const outbox = outboxDir(t);
  const { h, worker } = await ddexServer(t, pathToFileURL(outbox).href);
  const { key } = await givenCaller(h);
  const { releaseId, upc } = await givenApprovedRelease(h, key, {
    type: 'single',
    tracks: [{ title: 'Night Drive', audio: noiseWav(STEREO_CD, 31) }],
  });
  await worker.drain();
  h.clock.advance(24 * 3_600_000);
  const requested = await call(h, 'POST', `/api/v1/releases/${releaseId}/takedown-request`, {
    key,
    payload: { reason: 'The artist left the label' },
  });
  assert.equal(requested.statusCode, 201, requested.body);
  await approveTakedown(h.ctx, (json(requested) as { request: { id: number } }).request.id);
  await worker.drain();

  const batchId = h.clock.now().toISOString().replace(/\D/g, '').slice(0, 17);
  const today = h.clock.now().toISOString().slice(0, 10);
  for (const dsp of ['spotify', 'deezer']) {
    const folder = `${dsp}/${batchId}`;
    const taken = (await dropOf(outbox, dsp)).filter((file) => file.startsWith(`${folder}/`));
    assert.deepEqual(taken, [`${folder}/${upc}/${upc}.xml`, `${folder}/BatchComplete_${batchId}.xml`]);
    const message = messageAt(outbox, `${folder}/${upc}/${upc}.xml`);
    for (const deal of children(child(child(message, 'DealList'), 'ReleaseDeal'), 'Deal')) {
      assert.deepEqual(child(child(deal, 'DealTerms'), 'ValidityPeriod'), {
        StartDate: today,
        EndDate: today,
      });
    }
    const recording = child(child(message, 'ResourceList'), 'SoundRecording');
    const deliveryFile = child(
      child(child(recording, 'SoundRecordingEdition'), 'TechnicalDetails'),
      'DeliveryFile',
    );
    assert.equal(deliveryFile.IsProvidedInDelivery, 'false');
  }
});

test('with DDEX_OUTBOX_URL=s3://… the batches go into the bucket, copied from media in a bucket', async (t) => {
  const s3 = await startS3Server();
  t.after(() => s3.close());
  const { h, worker } = await ddexServer(t, `s3://${s3.bucket}/outbox`, s3.env);
  const { key } = await givenCaller(h);
  const { upc } = await givenApprovedRelease(h, key, {
    type: 'single',
    tracks: [{ title: 'Night Drive', audio: noiseWav(STEREO_CD, 51) }],
  });
  await worker.drain();
  const batchId = h.clock.now().toISOString().replace(/\D/g, '').slice(0, 17);
  const outboxKeys = (await bucketKeys(s3)).filter((name) => name.startsWith('outbox/'));
  assert.deepEqual(
    outboxKeys,
    ['deezer', 'spotify']
      .flatMap((dsp) => [
        `outbox/${dsp}/${batchId}/${upc}/${upc}.xml`,
        `outbox/${dsp}/${batchId}/${upc}/resources/${upc}.png`,
        `outbox/${dsp}/${batchId}/${upc}/resources/${upc}_01_001.wav`,
        `outbox/${dsp}/${batchId}/BatchComplete_${batchId}.xml`,
      ])
      .sort(),
  );
  const outbox = objectsAt({ kind: 's3', bucket: s3.bucket, prefix: 'outbox' }, h.ctx.config);
  const opened = await outbox.open(`spotify/${batchId}/${upc}/${upc}.xml`);
  assert.ok(opened);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(Buffer.from(chunk));
  assertValidErn(Buffer.concat(chunks).toString('utf8'));
});
