import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type FormEntry, wavPart } from '../helpers/audio.ts';
import { call, json } from '../helpers/harness.ts';
import {
  assertInvalid,
  assertStored,
  createdTrack,
  postTrack,
  releaseUpdatedAt,
  setup,
  type TrackCard,
} from '../helpers/tracks.ts';

test('metadata is checked field by field with 400 invalid and the field', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const cases: Array<[FormEntry[], string]> = [
    [[['isrc', 'US-RC1-76-0783']], 'isrc'],
    [[['isrc', 'USRC1X607839']], 'isrc'],
    [[['language', 'xx']], 'language'],
    [[['language', 'eng']], 'language'],
    [[['preview_start_sec', '-1']], 'preview_start_sec'],
    [[['preview_start_sec', 'soon']], 'preview_start_sec'],
    [[['preview_start_sec', '1']], 'preview_start_sec'],
    [[['explicit', 'maybe']], 'explicit'],
    [[['writers', '[{"name": "Mira", "roles": ["Composer"]']], 'writers'],
    [[['writers', '{"name": "Mira"}']], 'writers'],
    [[['writers', JSON.stringify([{ name: 'Mira', roles: ['Producer'] }])]], 'writers'],
    [[['writers', JSON.stringify([{ name: 'Mira', roles: [] }])]], 'writers'],
    [[['contributors', 'not json']], 'contributors'],
    [[['contributors', JSON.stringify([{ name: 'Ivan', role: 'Tambourine Whisperer' }])]], 'contributors'],
    [[['contributors', JSON.stringify([{ name: 'Ivan', role: 'Composer' }])]], 'contributors'],
    [[['contributors', JSON.stringify([{ name: ' ', role: 'Producer' }])]], 'contributors'],
    [[['featured', JSON.stringify([{ name: '' }])]], 'featured'],
    [[['ai_service', 'Suno']], 'ai_elements'],
    [[['ai_elements', 'vocals']], 'ai_service'],
    [
      [
        ['ai_service', 'Suno'],
        ['ai_elements', 'vocals,drums'],
      ],
      'ai_elements',
    ],
    [
      [
        ['ai_service', 'Suno'],
        ['ai_elements', '["vocals", 5]'],
      ],
      'ai_elements',
    ],
  ];
  for (const [fields, field] of cases) {
    assertInvalid(await postTrack(h, key, releaseId, [['title', 'T'], wavPart(), ...fields]), field);
  }
  await assertStored(h, 0);
});

test('local-language role names are stored by their canonical name; an empty AI disclosure is no mark', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [
    ['title', 'Roles'],
    wavPart(),
    [
      'contributors',
      JSON.stringify([
        { name: 'Анна', role: 'ВОКАЛИСТ' },
        { name: 'Ivan', role: 'producer' },
      ]),
    ],
    ['writers', JSON.stringify([{ name: 'Пётр', roles: ['Композитор', 'Composer'] }])],
    ['ai_service', ''],
    ['ai_elements', ''],
  ]);
  assert.deepEqual(track.contributors, [
    { name: 'Анна', role: 'Vocalist' },
    { name: 'Ivan', role: 'Producer' },
  ]);
  assert.deepEqual(track.writers, [{ name: 'Пётр', roles: ['Composer'] }]);
  assert.equal(track.ai, null);
  const ai = await createdTrack(h, key, releaseId, [
    ['title', 'AI'],
    wavPart(),
    ['ai_service', 'Suno'],
    ['ai_elements', '["production", "vocals", "production"]'],
  ]);
  assert.deepEqual(ai.ai, { service: 'Suno', elements: ['production', 'vocals'] });
});

test('PATCH edits metadata, checks it like POST, and touches the release', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [
    ['title', 'Draft'],
    wavPart(),
    ['isrc', 'USRC17607839'],
  ]);
  const path = `/api/v1/releases/${releaseId}/tracks/${track.id}`;
  h.clock.advance(5_000);
  const response = await call(h, 'PATCH', path, {
    key,
    payload: {
      title: 'Final',
      isrc: null,
      language: 'ru',
      preview_start_sec: 0.25,
      contributors: [{ name: 'Ivan', role: 'Продюсер' }],
      ai_service: 'Udio',
      ai_elements: ['instrumentation'],
      explicit: true,
    },
  });
  assert.equal(response.statusCode, 200, response.body);
  const patched = (json(response) as { track: TrackCard }).track;
  assert.deepEqual(
    {
      title: patched.title,
      isrc: patched.isrc,
      language: patched.language,
      preview: patched.preview_start_sec,
      contributors: patched.contributors,
      ai: patched.ai,
      updated_at: patched.updated_at,
    },
    {
      title: 'Final',
      isrc: null,
      language: 'ru',
      preview: 0.25,
      contributors: [{ name: 'Ivan', role: 'Producer' }],
      ai: { service: 'Udio', elements: ['instrumentation'] },
      updated_at: '2026-03-02T10:00:05.000Z',
    },
  );
  assert.equal(await releaseUpdatedAt(h, releaseId), '2026-03-02T10:00:05.000Z');
  const cleared = await call(h, 'PATCH', path, { key, payload: { ai_service: null, ai_elements: [] } });
  assert.equal((json(cleared) as { track: TrackCard }).track.ai, null);

  const bad: Array<[Record<string, unknown>, string]> = [
    [{ isrc: 'nope' }, 'isrc'],
    [{ language: 'zz' }, 'language'],
    [{ preview_start_sec: 1 }, 'preview_start_sec'],
    [{ contributors: [{ name: 'X', role: 'Juggler' }] }, 'contributors'],
    [{ ai_service: 'Suno' }, 'ai_elements'],
    [{ ai_elements: ['vocals'] }, 'ai_service'],
    [{ title: '  ' }, 'title'],
    [{ number: 2 }, 'number'],
    [{ colour: 'red' }, 'colour'],
    [{}, 'body'],
  ];
  for (const [payload, field] of bad) assertInvalid(await call(h, 'PATCH', path, { key, payload }), field);
});

test('PATCH number moves a track and renumbers the others 1..n', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const ids: number[] = [];
  for (const title of ['A', 'B', 'C', 'D'])
    ids.push((await createdTrack(h, key, releaseId, [['title', title], wavPart()])).id);
  const order = async () =>
    (
      await h.ctx.db
        .selectFrom('tracks')
        .select(['title', 'number'])
        .where('release_id', '=', releaseId)
        .orderBy('number')
        .execute()
    ).map((row) => `${row.number}${row.title}`);
  const move = (index: number, number: number) =>
    call(h, 'PATCH', `/api/v1/releases/${releaseId}/tracks/${ids[index]}`, { key, payload: { number } });

  assert.equal((json(await move(3, 1)) as { track: TrackCard }).track.number, 1);
  assert.deepEqual(await order(), ['1D', '2A', '3B', '4C']);
  await move(3, 3);
  assert.deepEqual(await order(), ['1A', '2B', '3D', '4C']);
  await move(1, 2);
  assert.deepEqual(await order(), ['1A', '2B', '3D', '4C']);
  assertInvalid(await move(0, 5), 'number');
  assertInvalid(await move(0, 0), 'number');
  assert.deepEqual(await order(), ['1A', '2B', '3D', '4C']);
});

test('JSON bodies are taken as sent: PATCH preview_start_sec 0 keeps 0, null clears it, "0" is refused', async (t) => {
  const { h, key, releaseId } = await setup(t);
  const track = await createdTrack(h, key, releaseId, [
    ['title', 'Zero'],
    ['preview_start_sec', '0.5'],
    wavPart(),
  ]);
  const patch = (payload: Record<string, unknown>) =>
    call(h, 'PATCH', `/api/v1/releases/${releaseId}/tracks/${track.id}`, { key, payload });
  let response = await patch({ preview_start_sec: 0 });
  assert.equal(response.statusCode, 200);
  assert.equal((json(response) as { track: TrackCard }).track.preview_start_sec, 0);
  response = await patch({ preview_start_sec: null });
  assert.equal((json(response) as { track: TrackCard }).track.preview_start_sec, null);
  response = await patch({ preview_start_sec: '0' });
  assertInvalid(response, 'preview_start_sec');
});
