import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { ensureSandboxWorkspace, getLabel } from '../../src/modules/labels/labels.service.ts';
import { givenLabel } from '../helpers/harness.ts';
import { mediaPath } from '../helpers/media.ts';
import {
  COVER,
  findingsOf,
  givenCleanRelease,
  setup,
  sha256,
  stereoFlac,
  stereoWav,
  whiteNoise,
} from '../helpers/moderation.ts';

test('a clean release with full-band stereo audio, a cover and credits has no findings', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'ABBA', version: 'Deluxe Edition' },
    tracks: [
      {},
      { row: { title: 'Come Clean', version: 'Radio Edit' } },
      { audio: stereoFlac(whiteNoise(3), whiteNoise(4)), format: 'flac', row: { title: 'A Great Feat' } },
    ],
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), []);
});

test('audio identical to a track another label sent to the distributor is a duplicate; its drafts do not count', async (t) => {
  const { h, labelId } = await setup(t);
  const other = await givenLabel(h, { name: 'Harbour Lane Music' });
  const audio = stereoWav(whiteNoise(11));
  const releaseId = await givenCleanRelease(h, labelId, { tracks: [{}, { audio }] });
  const otherRelease = await givenCleanRelease(h, other.id, { tracks: [{ audio }] });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [], 'a draft elsewhere blocks nobody');
  await h.ctx.db.updateTable('releases').set({ status: 'live' }).where('id', '=', otherRelease).execute();
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), [
    {
      code: 'duplicate_audio',
      field: 'tracks.1.audio',
      message:
        'The audio of track 2 is byte-for-byte identical to a track of another label; deliver only recordings this label holds the rights to.',
    },
  ]);
});

test("the same audio on the label's other releases and in its own sandbox is not a duplicate", async (t) => {
  const { h, labelId } = await setup(t);
  const sandbox = await ensureSandboxWorkspace(h.ctx, await getLabel(h.ctx, labelId));
  const audio = stereoWav(whiteNoise(12));
  const releaseId = await givenCleanRelease(h, labelId, { tracks: [{ audio }] });
  await givenCleanRelease(h, labelId, { tracks: [{ audio }] });
  const sandboxReleaseId = await givenCleanRelease(h, sandbox.id, { tracks: [{ audio }] });
  assert.deepStrictEqual(await findingsOf(h, labelId, releaseId), []);
  assert.deepStrictEqual(await findingsOf(h, sandbox.id, sandboxReleaseId), [], 'checked from the sandbox');
});

test('a release without a cover, or whose cover file is gone, is reported', async (t) => {
  const { h, labelId } = await setup(t);
  const withoutCover = await givenCleanRelease(h, labelId, {
    release: { cover_hash: null, cover_format: null },
  });
  assert.deepStrictEqual(await findingsOf(h, labelId, withoutCover), [
    {
      code: 'cover_missing',
      field: 'cover',
      message: 'The release has no cover; upload a square JPEG or PNG image of at least 1400 x 1400 px.',
    },
  ]);
  const coverGone = await givenCleanRelease(h, labelId);
  await rm(mediaPath(h.dataDir, 'covers', sha256(COVER), 'jpg'));
  assert.deepStrictEqual(await findingsOf(h, labelId, coverGone), [
    {
      code: 'cover_missing',
      field: 'cover',
      message: 'The cover image file is missing from storage; upload the cover again.',
    },
  ]);
});

test('findings come release first, then each track in order', async (t) => {
  const { h, labelId } = await setup(t);
  const releaseId = await givenCleanRelease(h, labelId, {
    release: { title: 'Track 9', cover_hash: null, cover_format: null },
    tracks: [
      { row: { title: 'Untitled', contributors: '[]', channels: 1 } },
      { row: { title: 'Lights (feat. Ode)' } },
    ],
  });
  const findings = await findingsOf(h, labelId, releaseId);
  assert.deepStrictEqual(
    findings.map((finding) => [finding.field, finding.code]),
    [
      ['title', 'placeholder_title'],
      ['cover', 'cover_missing'],
      ['tracks.0.title', 'placeholder_title'],
      ['tracks.0.contributors', 'contributors_missing'],
      ['tracks.0.audio', 'audio_mono'],
      ['tracks.1.title', 'featured_artist_in_title'],
    ],
  );
});
