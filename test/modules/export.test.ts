import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchKey } from '../../src/lib/text.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

const HEADER =
  'release_id,release_title,artist,type,status,release_date,upc,genre,track_no,track_title,version,isrc,explicit,language';

/** Records of a CSV body without quoted line breaks, header first. */
function records(body: string): string[] {
  assert.ok(body.endsWith('\r\n'), 'the last record ends with CRLF');
  return body.slice(0, -2).split('\r\n');
}

async function exportCsv(h: Harness, key: string) {
  const response = await call(h, 'GET', '/api/v1/catalog/export.csv', { key });
  assert.equal(response.statusCode, 200, response.body);
  return response;
}

test('the export is UTF-8 CSV with a BOM, a header row, one record per track in release and track order', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  const artist = await givenArtist(h, label.id, { name: 'Ёлка, "Зима"' });
  const first = await givenRelease(h, label.id, {
    artist_id: artist.id,
    title: 'Night Drive',
    type: 'ep',
    status: 'live',
    upc: '5012345678900',
    release_date: '2026-05-01',
    genre: 'Electronic',
  });
  const second = await givenRelease(h, label.id, { artist_id: artist.id, title: 'Line\nBreak' });
  await givenTrack(h, label.id, second.id, { title: 'Only', number: 1 });
  await givenTrack(h, label.id, first.id, {
    title: 'Outro',
    number: 2,
    version: 'Live, 2026',
    isrc: 'USRC17607840',
    language: 'ru',
  });
  await givenTrack(h, label.id, first.id, {
    title: 'Intro',
    number: 1,
    isrc: 'USRC17607839',
    explicit: 1,
    language: 'en',
  });

  const response = await exportCsv(h, key);
  assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
  assert.equal(response.headers['content-disposition'], 'attachment; filename="catalog-2026-03-02.csv"');
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers['x-api-version'], '1.1.0');
  assert.equal(response.headers.etag, undefined);
  assert.deepEqual([...response.rawPayload.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(
    response.body,
    [
      `\uFEFF${HEADER}`,
      `${first.id},Night Drive,"Ёлка, ""Зима""",ep,live,2026-05-01,5012345678900,Electronic,1,Intro,,USRC17607839,true,en`,
      `${first.id},Night Drive,"Ёлка, ""Зима""",ep,live,2026-05-01,5012345678900,Electronic,2,Outro,"Live, 2026",USRC17607840,false,ru`,
      `${second.id},"Line\nBreak","Ёлка, ""Зима""",single,draft,2026-06-01,,Pop,1,Only,,,false,`,
      '',
    ].join('\r\n'),
  );
});

test('an empty catalog exports the header row alone', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { plan: 'enterprise' });
  assert.equal((await exportCsv(h, key)).body, `\uFEFF${HEADER}\r\n`);
});

/** `count` tracks in each of `releases` releases, written in bulk, numbered in reverse of insertion. */
async function givenManyTracks(h: Harness, labelId: number, releases: number, count: number) {
  const artist = await givenArtist(h, labelId, { name: 'Bulk' });
  const at = h.clock.now().toISOString();
  for (let r = 0; r < releases; r++) {
    const release = await givenRelease(h, labelId, { artist_id: artist.id, title: `Release ${r}` });
    const rows = Array.from({ length: count }, (_, i) => ({
      label_id: labelId,
      release_id: release.id,
      number: count - i,
      title: `Track ${count - i}`,
      title_key: searchKey(`Track ${count - i}`),
      explicit: 0,
      instrumental: 0,
      writers: '[]',
      contributors: '[]',
      featured: '[]',
      created_at: at,
      updated_at: at,
    }));
    for (let start = 0; start < rows.length; start += 500) {
      await h.ctx.db
        .insertInto('tracks')
        .values(rows.slice(start, start + 500))
        .execute();
    }
  }
}

test('the export reads a large catalog in batches without losing or repeating a track', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  await givenManyTracks(h, label.id, 3, 900);

  const rows = records((await exportCsv(h, key)).body).slice(1);
  assert.equal(rows.length, 2700);
  const keys = rows.map((row) => {
    const fields = row.split(',');
    return `${fields[1]}#${fields[8]}`;
  });
  const expected = [0, 1, 2].flatMap((r) => Array.from({ length: 900 }, (_, i) => `Release ${r}#${i + 1}`));
  assert.deepEqual(keys, expected);
});

test('the export is a Pro feature: other plans get 403 plan_required', async (t) => {
  const h = await buildHarness(t);
  for (const plan of ['start', 'label']) {
    const { key } = await givenCaller(h, { plan });
    const response = await call(h, 'GET', '/api/v1/catalog/export.csv', { key });
    assert.equal(response.statusCode, 403, plan);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(json(response), {
      error: 'This needs the Pro plan or above',
      code: 'plan_required',
      required_plan: 'pro',
    });
  }
});

test('the export needs catalog:read and holds only the caller’s catalog', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  const other = await givenCaller(h, { plan: 'pro' });
  const mine = await givenRelease(h, label.id, { title: 'Mine' });
  await givenTrack(h, label.id, mine.id, { title: 'My Song' });
  const theirs = await givenRelease(h, other.label.id, { title: 'Theirs' });
  await givenTrack(h, other.label.id, theirs.id, { title: 'Their Song' });

  const rows = records((await exportCsv(h, key)).body);
  assert.deepEqual(
    rows.map((row) => row.split(',')[9]),
    ['track_title', 'My Song'],
  );

  const { key: narrow } = await givenCaller(h, { plan: 'pro', scopes: ['links:read'] });
  const response = await call(h, 'GET', '/api/v1/catalog/export.csv', { key: narrow });
  assert.equal(response.statusCode, 403);
  assert.equal((json(response) as { code: string }).code, 'forbidden');
});

test('text a spreadsheet would run as a formula is exported as text; numbers stay numbers', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  const created = await call(h, 'POST', '/api/v1/artists', {
    key,
    payload: { name: '=HYPERLINK("http://x","y")' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const artistId = (json(created) as { artist: { id: number } }).artist.id;
  const titles = ['+1', '-2', '@SUM(A1)', '\tx', '\rx', 'plain -3'];
  for (const title of titles) {
    const release = await givenRelease(h, label.id, { artist_id: artistId, title, genre: 'Pop' });
    await givenTrack(h, label.id, release.id, { title: '=1+1', number: 1 });
  }

  const rows = records((await exportCsv(h, key)).body).slice(1);
  const artist = `"'=HYPERLINK(""http://x"",""y"")"`;
  const escapedTitles = [`"'+1"`, `"'-2"`, `"'@SUM(A1)"`, `"'\tx"`, `"'\rx"`, 'plain -3'];
  assert.deepEqual(
    rows.map((row) => row.replace(/^\d+,/, '')),
    escapedTitles.map((title) => `${title},${artist},single,draft,2026-06-01,,Pop,1,"'=1+1",,,false,`),
  );
});
