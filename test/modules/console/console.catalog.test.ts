// The console's Catalog page (issue 20): releases with search, status filter and paging; a release's page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenArtist, givenRelease, givenTrack } from '../../helpers/catalog.ts';
import { buildHarness, givenLabel, type Harness } from '../../helpers/harness.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

async function signedInViewer(h: Harness, labelId: number): Promise<Browser> {
  const { invitePath } = await givenInvitedMember(h, labelId, { login: 'viewer', role: 'viewer' });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  return browser;
}

const titlesIn = (body: string) =>
  [...body.matchAll(/<td><a href="\/console\/catalog\/\d+">([^<]+)<\/a><\/td>/g)].map((m) => m[1]);

test('the catalog lists the label’s releases newest first, 25 a page, filtered by status or found by title', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const other = await givenLabel(h, { name: 'Harbour Lights' });
  await givenRelease(h, other.id, { title: 'Not Ours' });
  const artist = await givenArtist(h, label.id);
  for (let i = 1; i <= 27; i++) {
    await givenRelease(h, label.id, {
      artist_id: artist.id,
      title: `Song ${String(i).padStart(2, '0')}`,
      status: i % 9 === 0 ? 'live' : 'draft',
    });
    h.clock.advance(1000);
  }
  const browser = await signedInViewer(h, label.id);

  const first = await browser.get('/console/catalog');
  assert.equal(first.statusCode, 200);
  assert.match(first.body, /<a href="\/console\/catalog" aria-current="page">Catalog<\/a>/);
  const firstTitles = titlesIn(first.body);
  assert.equal(firstTitles.length, 25);
  assert.equal(firstTitles[0], 'Song 27', 'newest first');
  assert.ok(!first.body.includes('Not Ours'), 'no other label’s release');
  assert.match(first.body, /Page 1 of 2 \(27 releases\)/);
  assert.match(first.body, /<a href="\/console\/catalog\?page=2" rel="next">Next<\/a>/);

  const second = await browser.get('/console/catalog?page=2');
  assert.deepEqual(titlesIn(second.body), ['Song 02', 'Song 01']);

  const live = await browser.get('/console/catalog?status=live');
  assert.deepEqual(titlesIn(live.body), ['Song 27', 'Song 18', 'Song 09']);
  assert.match(live.body, /<option value="live" selected>live<\/option>/);

  const found = await browser.get('/console/catalog?q=song+1');
  assert.equal(found.statusCode, 200);
  assert.ok(
    titlesIn(found.body).every((title) => title?.startsWith('Song 1')),
    titlesIn(found.body).join(),
  );
  const tooShort = await browser.get('/console/catalog?q=s');
  assert.equal(tooShort.statusCode, 400);
  assert.match(tooShort.body, /q must have at least 2 characters/);
});

test('a release’s page shows its tracks and history; another label’s release is a 404 page', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const other = await givenLabel(h, { name: 'Harbour Lights' });
  const release = await givenRelease(h, label.id, { title: 'Night Drive', upc: '5012345678900', type: 'ep' });
  await givenTrack(h, label.id, release.id, { title: 'Intro <b>', number: 1, isrc: 'USRC17607839' });
  const theirs = await givenRelease(h, other.id, { title: 'Not Ours' });
  const browser = await signedInViewer(h, label.id);

  const page = await browser.get(`/console/catalog/${release.id}`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h2 id="release">Night Drive — /);
  assert.match(page.body, /<dt>UPC<\/dt><dd>5012345678900<\/dd>/);
  assert.match(page.body, /<td>Intro &lt;b&gt;<\/td><td>USRC17607839<\/td>/, 'the track, its title escaped');
  assert.match(page.body, /<h2 id="history">History<\/h2>/);

  for (const path of [`/console/catalog/${theirs.id}`, '/console/catalog/nope', '/console/catalog/0']) {
    const refused = await browser.get(path);
    assert.equal(refused.statusCode, 404, path);
    assert.match(refused.body, /<p class="error" role="alert">Release not found<\/p>/);
    assert.ok(!refused.body.includes('Not Ours'));
  }
});
