import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findingsOf, givenCleanRelease, setup } from '../helpers/moderation.ts';

test('featured artists in a title or version belong in the credits', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Night Drive (feat. Nova Hill)' },
    tracks: [
      { row: { title: 'Night Drive', version: 'Remix ft. Nova Hill' } },
      { row: { title: 'Lights featuring Ode' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'featured_artist_in_title',
      field: 'title',
      message:
        'The release title names a featured artist ("feat."); remove it and list featured artists in the release\'s featured_artists.',
    },
    {
      code: 'featured_artist_in_title',
      field: 'tracks.0.version',
      message:
        'The version of track 1 names a featured artist ("feat."); remove it and list featured artists in the track\'s featured credits.',
    },
    {
      code: 'featured_artist_in_title',
      field: 'tracks.1.title',
      message:
        'The title of track 2 names a featured artist ("feat."); remove it and list featured artists in the track\'s featured credits.',
    },
  ]);
});

test('a title in capitals is reported, a short acronym is not', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'NIGHT DRIVE' },
    tracks: [{ row: { title: 'DNA' } }, { row: { title: 'Lights', version: 'LIVE AT THE ROXY' } }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'title_all_caps',
      field: 'title',
      message:
        'The release title is written in capital letters; stores require standard capitalisation (all capitals only for acronyms).',
    },
    {
      code: 'title_all_caps',
      field: 'tracks.1.version',
      message:
        'The version of track 2 is written in capital letters; stores require standard capitalisation (all capitals only for acronyms).',
    },
  ]);
});

test('store names and web addresses in a title are reported', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Night Drive (Spotify Singles)' },
    tracks: [
      { row: { title: 'Tidal Wave' } },
      { row: { title: 'Lights', version: 'Live on TIDAL' } },
      { row: { title: 'Out now at www.miravale.com' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'store_name_in_title',
      field: 'title',
      message:
        'The release title names a store or service ("Spotify"); remove it, as stores refuse titles that mention a platform.',
    },
    {
      code: 'store_name_in_title',
      field: 'tracks.1.version',
      message:
        'The version of track 2 names a store or service ("TIDAL"); remove it, as stores refuse titles that mention a platform.',
    },
    {
      code: 'url_in_title',
      field: 'tracks.2.title',
      message:
        'The title of track 3 contains a web address; remove it, as stores refuse links and addresses in titles.',
    },
  ]);
});

test('explicit and clean markers in a title or version are reported', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Night Drive [Explicit]' },
    tracks: [
      { row: { title: 'Night Drive (Explicit Version)', explicit: 1 } },
      { row: { version: 'Clean' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'explicit_marker_in_title',
      field: 'title',
      message:
        "The release title carries an explicit or clean marker; remove it, explicit content is marked with each track's explicit flag.",
    },
    {
      code: 'explicit_marker_in_title',
      field: 'tracks.0.title',
      message:
        "The title of track 1 carries an explicit or clean marker; remove it, mark explicit content with the track's explicit flag instead.",
    },
    {
      code: 'explicit_marker_in_title',
      field: 'tracks.1.version',
      message:
        "The version of track 2 carries an explicit or clean marker; remove it, mark explicit content with the track's explicit flag instead.",
    },
  ]);
});

test('placeholder titles are reported', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Untitled' },
    tracks: [{ row: { title: 'Track 1' } }, { row: { title: 'Intro' } }, { row: { title: 'final_mix.wav' } }],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'placeholder_title',
      field: 'title',
      message: 'The release title, "Untitled", looks like a placeholder; give the real title.',
    },
    {
      code: 'placeholder_title',
      field: 'tracks.0.title',
      message: 'The title of track 1, "Track 1", looks like a placeholder; give the real title.',
    },
    {
      code: 'placeholder_title',
      field: 'tracks.2.title',
      message: 'The title of track 3, "final_mix.wav", looks like a placeholder; give the real title.',
    },
  ]);
});

test('every track needs at least one named contributor', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    tracks: [
      {},
      { row: { contributors: '[]' } },
      { row: { contributors: JSON.stringify([{ name: ' ', role: 'Producer' }]) } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'contributors_missing',
      field: 'tracks.1.contributors',
      message: 'Track 2 lists no contributors; add at least one (for example the performer or the producer).',
    },
    {
      code: 'contributors_missing',
      field: 'tracks.2.contributors',
      message: 'Track 3 lists no contributors; add at least one (for example the performer or the producer).',
    },
  ]);
});
