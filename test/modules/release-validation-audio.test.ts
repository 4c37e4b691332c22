import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { AUDIO_ANALYSIS_JOB } from '../../src/modules/tracks/tracks.analysis.ts';
import { STEREO_CD } from '../helpers/audio.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import {
  buildHarness,
  call,
  givenCaller,
  givenKey,
  givenLabel,
  type Harness,
  json,
  openTestDatabase,
} from '../helpers/harness.ts';
import { lowPassed, stereoWav } from '../helpers/moderation.ts';
import { card, givenDraft, noiseWav, submit } from '../helpers/pipeline.ts';
import { givenWorker } from '../helpers/webhooks.ts';

/* Validate shows the lossy-source analysis that a job runs after each upload (issue 21). */

interface Problem {
  code: string;
  severity: 'error' | 'warning';
  field: string;
  message: string;
  track_id: number | null;
}

async function validation(
  h: Harness,
  key: string,
  id: number,
): Promise<{ ready: boolean; problems: Problem[] }> {
  const response = await call(h, 'POST', `/api/v1/releases/${id}/validate`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as { ready: boolean; problems: Problem[] };
}

/** The problems about audio, leaving the draft's small cover aside. */
async function audioProblems(h: Harness, key: string, id: number): Promise<Problem[]> {
  return (await validation(h, key, id)).problems.filter((problem) => problem.field.endsWith('.audio'));
}

function pending(trackNumber: number, trackId: number | undefined): Problem {
  return {
    code: 'audio_analysis_pending',
    severity: 'warning',
    field: `tracks.${trackNumber - 1}.audio`,
    message: `The audio of track ${trackNumber} is still being checked for a lossy source; ask again in a moment.`,
    track_id: trackId ?? null,
  };
}

const LOSSLESS = 'upload a WAV or FLAC exported from the lossless master';
/** A decoded MP3: nothing above 15.05 kHz. */
const FROM_MP3 = stereoWav(lowPassed(41, 15_050));

async function replaceAudio(h: Harness, key: string, releaseId: number, trackId: number, wav: Buffer) {
  const response = await call(h, 'PUT', `/api/v1/releases/${releaseId}/tracks/${trackId}/audio`, {
    key,
    headers: { 'content-type': 'audio/x-wav' },
    payload: wav,
  });
  assert.equal(response.statusCode, 200, response.body);
}

test('audio converted from an MP3 is pending until its analysis has run, then a lossy_source error', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId, trackIds } = await givenDraft(h, key, {
    tracks: [
      { title: 'Night Drive', audio: noiseWav(STEREO_CD, 3) },
      { title: 'Coastline', audio: FROM_MP3 },
    ],
  });
  const [nightDrive, coastline] = trackIds;

  const before = await validation(h, key, releaseId);
  assert.equal(before.ready, true, 'a pending analysis is a warning');
  assert.deepEqual(
    before.problems.filter((problem) => problem.field.endsWith('.audio')),
    [pending(1, nightDrive), pending(2, coastline)],
  );

  await worker.drain();
  const after = await validation(h, key, releaseId);
  assert.equal(after.ready, false);
  assert.deepEqual(
    after.problems.filter((problem) => problem.field.endsWith('.audio')),
    [
      {
        code: 'lossy_source',
        severity: 'error',
        field: 'tracks.1.audio',
        message: `The audio of track 2 has almost no sound above 15.1 kHz, the mark of a file converted from an MP3 or similar; ${LOSSLESS}.`,
        track_id: coastline ?? null,
      },
    ],
  );
});

test('replacing the audio asks for a new analysis: pending, then clear once a clean file is analysed', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId, trackIds } = await givenDraft(h, key, {
    tracks: [{ title: 'Coastline', audio: FROM_MP3 }],
  });
  const [coastline = 0] = trackIds;
  await worker.drain();
  assert.deepEqual(
    (await audioProblems(h, key, releaseId)).map((problem) => problem.code),
    ['lossy_source'],
  );

  await replaceAudio(h, key, releaseId, coastline, noiseWav(STEREO_CD, 4));
  assert.deepEqual(
    await audioProblems(h, key, releaseId),
    [pending(1, coastline)],
    'the finding was of the old file',
  );
  await worker.drain();
  assert.deepEqual(await audioProblems(h, key, releaseId), []);

  await replaceAudio(h, key, releaseId, coastline, FROM_MP3);
  await worker.drain();
  assert.deepEqual(
    (await audioProblems(h, key, releaseId)).map((problem) => problem.code),
    ['lossy_source'],
  );
});

test('submit accepts a lossy release (moderation decides it), and moderation rejects it with the message validate showed', async (t) => {
  const h = await buildHarness(t, { env: { DISTRIBUTOR_REJECT_RATE: '0' } });
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key, { tracks: [{ title: 'Coastline', audio: FROM_MP3 }] });
  await worker.drain();
  const [problem] = await audioProblems(h, key, releaseId);

  assert.equal((await submit(h, key, releaseId)).statusCode, 202);
  await worker.drain();
  const rejected = await card(h, key, releaseId);
  assert.deepEqual(
    [rejected.status, rejected.review_status, rejected.review_comment],
    ['draft', 'rejected', problem?.message],
  );
});

test("moderation decides on the analysis stored for the track's audio, and analyses a file that has none", async (t) => {
  const h = await buildHarness(t, { env: { DISTRIBUTOR_REJECT_RATE: '0' } });
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const stored = await givenDraft(h, key, {
    tracks: [{ title: 'Night Drive', audio: noiseWav(STEREO_CD, 5) }],
  });
  const unanalysed = await givenDraft(h, key, { tracks: [{ title: 'Coastline', audio: FROM_MP3 }] });
  await worker.drain();
  // What the job found, as another analysis might have found it: moderation reads it, not the file.
  const [nightDrive = 0] = stored.trackIds;
  const row = await h.ctx.db
    .selectFrom('tracks')
    .select('audio_hash')
    .where('id', '=', nightDrive)
    .executeTakeFirstOrThrow();
  const finding = { audio_hash: row.audio_hash, lossy: { kind: 'encoder_tag', tag: 'LAME3.100' } };
  await h.ctx.db
    .updateTable('tracks')
    .set({ audio_analysis: JSON.stringify(finding) })
    .where('id', '=', nightDrive)
    .execute();
  // A track stored before the analyses were kept.
  await h.ctx.db
    .updateTable('tracks')
    .set({ audio_analysis: null })
    .where('release_id', '=', unanalysed.releaseId)
    .execute();

  for (const { releaseId } of [stored, unanalysed]) {
    assert.equal((await submit(h, key, releaseId)).statusCode, 202);
  }
  await worker.drain();
  assert.equal(
    (await card(h, key, stored.releaseId)).review_comment,
    `The tags of the audio of track 1 name a lossy encoder ("LAME3.100"), so it was converted from an MP3 or similar; ${LOSSLESS}.`,
  );
  assert.equal(
    (await card(h, key, unanalysed.releaseId)).review_comment,
    `The audio of track 1 has almost no sound above 15.1 kHz, the mark of a file converted from an MP3 or similar; ${LOSSLESS}.`,
  );
});

test("the sandbox's copy of the catalog keeps each track's analysis", async (t) => {
  const h = await buildHarness(t);
  const { key, label } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  await givenDraft(h, key, { tracks: [{ title: 'Coastline', audio: FROM_MP3 }] });
  await worker.drain();

  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const listed = await call(h, 'GET', '/api/v1/releases', { key: sandboxKey });
  assert.equal(listed.statusCode, 200, listed.body);
  const [copy] = (json(listed) as { releases: Array<{ id: number }> }).releases;
  assert.ok(copy);
  assert.deepEqual(
    (await audioProblems(h, sandboxKey, copy.id)).map((problem) => [problem.code, problem.severity]),
    [['lossy_source', 'error']],
    'no analysis waits in the sandbox for a file already analysed',
  );
});

test('migration 0021 queues the analysis of every draft’s stored audio, as an upload does; others need none', async (t) => {
  const database = await openTestDatabase(t, '0020_takedown_platforms');
  const h = await buildHarness(t, { database });
  const label = await givenLabel(h, { plan: 'label', contractSigned: true });
  const draft = await givenRelease(h, label.id, { title: 'Draft' });
  const live = await givenRelease(h, label.id, { title: 'Live', status: 'live', artist_id: draft.artist_id });
  const stored = await givenTrack(h, label.id, draft.id, { audio_hash: 'a'.repeat(64), audio_format: 'wav' });
  await givenTrack(h, label.id, draft.id, { number: 2, title: 'No audio yet' });
  await givenTrack(h, label.id, live.id, { audio_hash: 'b'.repeat(64), audio_format: 'wav' });

  assert.deepEqual(await migrateToLatest(database.db, database.dialect), [
    '0021_track_audio_analysis',
    '0022_webhook_recovery',
  ]);
  const jobs = await h.ctx.db.selectFrom('jobs').select(['kind', 'payload']).execute();
  assert.deepEqual(
    jobs.map((job) => [job.kind, JSON.parse(job.payload)]),
    [[AUDIO_ANALYSIS_JOB, { track_id: stored.id }]],
  );
});
