import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { PROBLEM_CODES } from '../../src/modules/validation/validation.codes.ts';
import { STEREO_CD } from '../helpers/audio.ts';
import { givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';
import { card, coverPng, givenDraft, noiseWav, submit } from '../helpers/pipeline.ts';
import { givenWorker } from '../helpers/webhooks.ts';

interface Problem {
  code: string;
  severity: 'error' | 'warning';
  field: string;
  message: string;
  track_id: number | null;
}

interface Validation {
  release_id: number;
  ready: boolean;
  problems: Problem[];
}

function validate(h: Harness, key: string, id: number, headers: Record<string, string> = {}) {
  return call(h, 'POST', `/api/v1/releases/${id}/validate`, { key, headers });
}

async function validation(h: Harness, key: string, id: number): Promise<Validation> {
  const response = await validate(h, key, id);
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as Validation;
}

/** Code, severity, field and track of each problem: what a label's code branches on. */
function outline(problems: readonly Problem[]): Array<[string, string, string, number | null]> {
  return problems.map((problem) => [problem.code, problem.severity, problem.field, problem.track_id]);
}

function patch(h: Harness, key: string, url: string, payload: object) {
  return call(h, 'PATCH', `/api/v1${url}`, { key, payload }).then((response) => {
    assert.equal(response.statusCode, 200, response.body);
  });
}

async function putCover(h: Harness, key: string, releaseId: number, side: number): Promise<void> {
  const response = await call(h, 'PUT', `/api/v1/releases/${releaseId}/cover`, {
    key,
    payload: await coverPng(side),
    headers: { 'content-type': 'image/png' },
  });
  assert.equal(response.statusCode, 200, response.body);
}

test('a release with a 3000 px cover, credits, stereo audio and a date months ahead is ready with no problems', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key);
  await putCover(h, key, releaseId, 3000);
  await worker.drain();
  const response = await validate(h, key, releaseId);
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assert.deepEqual(json(response), { release_id: releaseId, ready: true, problems: [] });
});

test('every error the stored release shows is listed; submit refuses with exactly its preconditions among them', async (t) => {
  const h = await buildHarness(t);
  const { key, label } = await givenCaller(h);
  const other = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  // The same recording, sent to the distributor by another label.
  const { releaseId: theirs } = await givenDraft(h, other.key, {
    tracks: [{ title: 'Coastline', audio: noiseWav(STEREO_CD, 2) }],
  });
  await h.ctx.db.updateTable('releases').set({ status: 'live' }).where('id', '=', theirs).execute();

  const { releaseId, trackIds } = await givenDraft(h, key);
  const [first, second] = trackIds;
  await patch(h, key, `/releases/${releaseId}`, { title: 'NIGHT DRIVE FT. KAI', version: 'Spotify Edit' });
  await patch(h, key, `/releases/${releaseId}/tracks/${first}`, {
    title: 'Track 3',
    version: 'Visit nova.com',
  });
  await patch(h, key, `/releases/${releaseId}/tracks/${second}`, { title: 'Lights (Explicit)' });
  // Rows the API would refuse today, as older rows or an operator's edits may hold them.
  await h.ctx.db
    .updateTable('tracks')
    .set({ contributors: '[]', channels: 1, sample_rate: 22_050, bit_depth: 8 })
    .where('id', '=', first ?? 0)
    .execute();
  const silent = await givenTrack(h, label.id, releaseId, {
    number: 3,
    title: 'Harbour Lights',
    contributors: '[{"name":"Ari Lund","role":"Producer"}]',
  });
  await worker.drain();

  const found = await validation(h, key, releaseId);
  assert.equal(found.release_id, releaseId);
  assert.equal(found.ready, false);
  assert.deepEqual(outline(found.problems), [
    ['featured_artist_in_title', 'error', 'title', null],
    ['title_all_caps', 'error', 'title', null],
    ['store_name_in_title', 'error', 'version', null],
    ['cover_under_recommended_size', 'warning', 'cover', null],
    ['placeholder_title', 'error', 'tracks.0.title', first],
    ['url_in_title', 'error', 'tracks.0.version', first],
    ['contributors_missing', 'error', 'tracks.0.contributors', first],
    ['audio_mono', 'error', 'tracks.0.audio', first],
    ['sample_rate_too_low', 'error', 'tracks.0.audio', first],
    ['bit_depth_too_low', 'error', 'tracks.0.audio', first],
    ['explicit_marker_in_title', 'error', 'tracks.1.title', second],
    ['duplicate_audio', 'error', 'tracks.1.audio', second],
    ['audio_missing', 'error', 'tracks.2.audio', silent.id],
  ]);
  assert.deepEqual(found.problems[6], {
    code: 'contributors_missing',
    severity: 'error',
    field: 'tracks.0.contributors',
    message: 'Track 1 lists no contributors; add at least one (for example the performer or the producer).',
    track_id: first,
  });
  assert.ok(found.problems.every((problem) => problem.message.length > 0));

  const refused = await submit(h, key, releaseId);
  assert.equal(refused.statusCode, 400);
  // The contract's submit preconditions (credits, audio); the titles and the audio's quality are
  // moderation's to reject.
  const preconditions = found.problems.filter(
    (problem) => problem.code === 'contributors_missing' || problem.code === 'audio_missing',
  );
  assert.deepEqual(json(refused), {
    error: `The release is not ready to submit: ${preconditions[0]?.message}`,
    code: 'invalid',
    field: 'tracks.0.contributors',
    problems: preconditions,
  });
  assert.equal((await card(h, key, releaseId)).status, 'draft');
});

test('a release without a cover or tracks, and a single of four tracks, are not ready; validate and submit agree', async (t) => {
  const h = await buildHarness(t);
  const { key, label } = await givenCaller(h);
  const empty = await givenDraft(h, key, { cover: false, tracks: [] });
  const single = await givenDraft(h, key, { type: 'single', tracks: [] });
  for (const number of [1, 2, 3, 4]) {
    await givenTrack(h, label.id, single.releaseId, {
      number,
      title: `Take ${number}`,
      contributors: '[{"name":"Ari Lund","role":"Producer"}]',
    });
  }
  const emptyFound = await validation(h, key, empty.releaseId);
  assert.deepEqual(emptyFound, {
    release_id: empty.releaseId,
    ready: false,
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
    ],
  });
  const singleFound = await validation(h, key, single.releaseId);
  assert.deepEqual(singleFound.problems.slice(0, 2), [
    {
      code: 'cover_under_recommended_size',
      severity: 'warning',
      field: 'cover',
      message:
        'The cover is 1400 x 1400 px; platforms recommend 3000 x 3000 px, and some feature only covers that large.',
      track_id: null,
    },
    {
      code: 'single_too_many_tracks',
      severity: 'error',
      field: 'tracks',
      message: 'A single has at most 3 tracks (this one has 4); remove tracks or make it an EP.',
      track_id: null,
    },
  ]);
  for (const found of [emptyFound, singleFound]) {
    const refused = json(await submit(h, key, found.release_id)) as { problems: Problem[] };
    assert.deepEqual(
      refused.problems,
      found.problems.filter((problem) => problem.severity === 'error'),
    );
  }
});

test('an error moderation decides is not ready: submit answers 202, and moderation rejects with its message', async (t) => {
  const h = await buildHarness(t, { env: { DISTRIBUTOR_REJECT_RATE: '0' } });
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key);
  await putCover(h, key, releaseId, 3000);
  await patch(h, key, `/releases/${releaseId}`, { title: 'NIGHT DRIVE' });
  await worker.drain();

  const found = await validation(h, key, releaseId);
  assert.deepEqual(outline(found.problems), [['title_all_caps', 'error', 'title', null]]);
  assert.equal(found.ready, false);
  const [problem] = found.problems;

  assert.equal((await submit(h, key, releaseId)).statusCode, 202, 'the contract leaves titles to moderation');
  await worker.drain();
  const rejected = await card(h, key, releaseId);
  assert.deepEqual(
    [rejected.status, rejected.review_status, rejected.review_comment],
    ['draft', 'rejected', problem?.message],
  );
});

test('warnings leave a release ready: submit accepts it and moderation approves it', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const earlier = await givenDraft(h, key, {
    tracks: [{ title: 'Night Drive', audio: noiseWav(STEREO_CD, 5) }],
  });
  const [earlierTrack] = earlier.trackIds;
  await patch(h, key, `/releases/${earlier.releaseId}/tracks/${earlierTrack}`, { isrc: 'USRC17607839' });

  const { releaseId, trackIds } = await givenDraft(h, key);
  const [nightDrive, coastline] = trackIds;
  await patch(h, key, `/releases/${releaseId}`, { release_date: '2026-03-05' });
  await patch(h, key, `/releases/${releaseId}/tracks/${nightDrive}`, {
    isrc: 'USRC17607839',
    lyrics: 'Headlights on the water\nWhat the fuck is a harbour for',
  });
  await patch(h, key, `/releases/${releaseId}/tracks/${coastline}`, { isrc: 'USRC17607839' });
  await worker.drain();

  const found = await validation(h, key, releaseId);
  assert.deepEqual(found, {
    release_id: releaseId,
    ready: true,
    problems: [
      {
        code: 'cover_under_recommended_size',
        severity: 'warning',
        field: 'cover',
        message:
          'The cover is 1400 x 1400 px; platforms recommend 3000 x 3000 px, and some feature only covers that large.',
        track_id: null,
      },
      {
        code: 'release_date_too_soon',
        severity: 'warning',
        field: 'release_date',
        message:
          'The release date, 2026-03-05, is 3 days away; platforms need about 7 days to list a release on its date, so set a later date or expect it to appear late.',
        track_id: null,
      },
      {
        code: 'explicit_lyrics_not_flagged',
        severity: 'warning',
        field: 'tracks.0.explicit',
        message:
          'The lyrics of track 1 contain explicit language ("fuck") but the track is not marked explicit; set explicit: true, or platforms may return the release.',
        track_id: nightDrive,
      },
      {
        code: 'isrc_used_with_other_title',
        severity: 'warning',
        field: 'tracks.1.isrc',
        message: `The ISRC of track 2, USRC17607839, is also on release ${earlier.releaseId} as "Night Drive"; one ISRC names one recording, so check the code.`,
        track_id: coastline,
      },
    ],
  });

  // The same title under the same ISRC is a re-release, and flagged lyrics are what the flag is for.
  await patch(h, key, `/releases/${releaseId}/tracks/${nightDrive}`, { explicit: true });
  await patch(h, key, `/releases/${releaseId}/tracks/${coastline}`, { isrc: null });
  await patch(h, key, `/releases/${releaseId}`, { release_date: '2026-03-09' });
  assert.deepEqual(outline((await validation(h, key, releaseId)).problems), [
    ['cover_under_recommended_size', 'warning', 'cover', null],
  ]);

  assert.equal((await submit(h, key, releaseId)).statusCode, 202);
  await worker.drain();
  const approved = await card(h, key, releaseId);
  assert.deepEqual(
    [approved.review_status, approved.review_comment],
    ['approved', 'Automated checks passed'],
  );
});

test('validate needs catalog:read, answers 404 for another label and keeps live and sandbox apart', async (t) => {
  const h = await buildHarness(t);
  const { key, label } = await givenCaller(h);
  const other = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key);

  const readOnly = await givenKey(h, label.id, { scopes: ['catalog:read'] });
  assert.equal((await validate(h, readOnly, releaseId)).statusCode, 200);
  const withoutRead = await givenKey(h, label.id, { scopes: ['stats:read'] });
  const forbidden = await validate(h, withoutRead, releaseId);
  assert.equal(forbidden.statusCode, 403);
  assert.deepEqual(json(forbidden), {
    error: 'This key lacks the scope catalog:read',
    code: 'forbidden',
    required_scope: 'catalog:read',
  });
  const foreign = await validate(h, other.key, releaseId);
  assert.equal(foreign.statusCode, 404);
  assert.deepEqual(json(foreign), { error: 'Release not found', code: 'not_found' });
  const unknown = await validate(h, key, 2_147_483_647);
  assert.equal(unknown.statusCode, 404);
  const badId = await validate(h, key, 0);
  assert.equal(badId.statusCode, 400);
  assert.equal((json(badId) as { code: string; field: string }).code, 'invalid');
  assert.equal((await call(h, 'POST', `/api/v1/releases/${releaseId}/validate`)).statusCode, 401);

  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const sandboxDraft = await givenDraft(h, sandboxKey, { cover: false });
  await worker.drain();
  const inSandbox = await validation(h, sandboxKey, sandboxDraft.releaseId);
  assert.deepEqual(outline(inSandbox.problems), [['cover_missing', 'error', 'cover', null]]);
  assert.equal((await validate(h, key, sandboxDraft.releaseId)).statusCode, 404);
  assert.equal((await validate(h, sandboxKey, releaseId)).statusCode, 404);
});

test('validate changes nothing: repeated with an Idempotency-Key, it answers for the release as it is now', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const { worker } = givenWorker(t, h, {});
  const { releaseId } = await givenDraft(h, key);
  await worker.drain();
  const before = await card(h, key, releaseId);
  const first = await validate(h, key, releaseId, { 'idempotency-key': 'check-1' });
  assert.deepEqual(outline((json(first) as Validation).problems), [
    ['cover_under_recommended_size', 'warning', 'cover', null],
  ]);
  assert.deepEqual(await card(h, key, releaseId), before);

  await putCover(h, key, releaseId, 3000);
  const again = await validate(h, key, releaseId, { 'idempotency-key': 'check-1' });
  assert.equal(again.statusCode, 200);
  assert.equal(again.headers['idempotent-replayed'], undefined);
  assert.deepEqual(json(again), { release_id: releaseId, ready: true, problems: [] });
});

test('the OpenAPI document describes validate and its problems, with every code', async (t) => {
  const h = await buildHarness(t);
  const doc = json(await call(h, 'GET', '/api/v1/openapi.json')) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const operation = doc.paths['/api/v1/releases/{id}/validate']?.post as {
    operationId: string;
    'x-required-scope': string;
    responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>;
  };
  assert.equal(operation.operationId, 'validateRelease');
  assert.equal(operation['x-required-scope'], 'catalog:read');
  const schema = operation.responses['200']?.content['application/json']?.schema as {
    required: string[];
    properties: {
      problems: { items: { required: string[]; properties: Record<string, { enum?: string[] }> } };
    };
  };
  assert.deepEqual(schema.required, ['release_id', 'ready', 'problems']);
  const item = schema.properties.problems.items;
  assert.deepEqual(item.required, ['code', 'severity', 'field', 'message', 'track_id']);
  assert.deepEqual(item.properties.code?.enum, Object.keys(PROBLEM_CODES));
  assert.deepEqual(item.properties.severity?.enum, ['error', 'warning']);
});

test('docs/api-guide.md lists every problem code with its severity', async () => {
  const guide = await readFile(new URL('../../docs/api-guide.md', import.meta.url), 'utf8');
  const rows = new Map(
    [...guide.matchAll(/^\| `([a-z_]+)` \| (error|warning) \|/gm)].map((match) => [match[1], match[2]]),
  );
  assert.deepEqual(
    Object.fromEntries(Object.keys(PROBLEM_CODES).map((code) => [code, rows.get(code)])),
    Object.fromEntries(Object.entries(PROBLEM_CODES).map(([code, entry]) => [code, entry.severity])),
  );
});
