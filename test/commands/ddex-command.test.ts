import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createLabel } from '../../src/modules/labels/labels.service.ts';
import { openContext } from '../../src/runtime.ts';
import { STEREO_CD } from '../helpers/audio.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { assertValidErn, child, parseXml, SENDER } from '../helpers/ddex.ts';
import { type Installation, newInstallation, runLabeldesk } from '../helpers/installation.ts';
import { mediaPath } from '../helpers/media.ts';
import { coverPng, noiseWav } from '../helpers/pipeline.ts';
import { filesUnder } from '../helpers/tracks.ts';

const UPC = '036000291452';
const ISRC = 'USRC17607839';
const DDEX = {
  DDEX_PARTY_ID: SENDER.id,
  DDEX_PARTY_NAME: SENDER.name,
  DDEX_PLATFORMS: 'spotify=PADPIDA2011072101T,tidal=PADPIDA2099010101X',
};

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function store(install: Installation, kind: 'covers' | 'audio', bytes: Buffer, ext: string): string {
  const hash = sha256(bytes);
  const path = mediaPath(install.dataDir, kind, hash, ext);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  return hash;
}

/** A release the distributor received, with its cover and audio in the installation's media store. */
async function givenDeliveredRelease(install: Installation, audio: Buffer): Promise<number> {
  const cover = await coverPng(1400);
  const { ctx, close } = await openContext(loadConfig(install.env));
  try {
    const label = await createLabel(ctx, { name: 'Northern Lights', plan: 'label', contractSigned: true });
    const artist = await givenArtist({ ctx }, label.id, { name: 'Mira Vale' });
    const release = await givenRelease({ ctx }, label.id, {
      artist_id: artist.id,
      title: 'Ночной город',
      status: 'submitted',
      upc: UPC,
      cover_hash: store(install, 'covers', cover, 'png'),
      cover_format: 'png',
      cover_width: 1400,
      cover_height: 1400,
      cover_bytes: cover.length,
    });
    await givenTrack({ ctx }, label.id, release.id, {
      title: 'Ночной город',
      isrc: ISRC,
      contributors: JSON.stringify([{ name: 'Ari Lund', role: 'Producer' }]),
      audio_hash: store(install, 'audio', audio, 'wav'),
      audio_format: 'wav',
      audio_filename: 'night.wav',
      audio_bytes: audio.length,
      duration_sec: 1,
      sample_rate: 44_100,
      bit_depth: 16,
      channels: 2,
    });
    return release.id;
  } finally {
    await close();
  }
}

describe('labeldesk ddex export', { concurrency: 1 }, () => {
  let install: Installation;
  let out: string;
  let releaseId: number;
  const audio = noiseWav(STEREO_CD, 41);

  before(async () => {
    install = await newInstallation('ddexcli');
    out = mkdtempSync(join(tmpdir(), 'labeldesk-ddex-out-'));
    releaseId = await givenDeliveredRelease(install, audio);
  });
  after(async () => {
    rmSync(out, { recursive: true, force: true });
    await install?.dispose();
  });

  test('writes a batch per configured platform into --out and prints them', async () => {
    const exit = await runLabeldesk(
      install,
      ['ddex', 'export', String(releaseId), '--out', out, '--json'],
      DDEX,
    );
    assert.deepEqual({ code: exit.code, stderr: exit.stderr }, { code: 0, stderr: '' }, exit.stdout);
    const { batches } = JSON.parse(exit.stdout) as {
      batches: Array<{ dsp: string; batch_id: string; folder: string; files: string[] }>;
    };
    assert.deepEqual(
      batches.map((batch) => batch.dsp),
      ['spotify', 'tidal'],
    );
    for (const batch of batches) {
      assert.match(batch.batch_id, /^\d{17}$/);
      assert.equal(batch.folder, `${batch.dsp}/${batch.batch_id}`);
      const files = [
        `${batch.folder}/${UPC}/resources/${UPC}.png`,
        `${batch.folder}/${UPC}/resources/${UPC}_01_001.wav`,
        `${batch.folder}/${UPC}/${UPC}.xml`,
        `${batch.folder}/BatchComplete_${batch.batch_id}.xml`,
      ];
      assert.deepEqual(batch.files, files);
      const onDisk = (await filesUnder(join(out, batch.dsp))).map((file) => relative(out, file));
      assert.deepEqual(onDisk.sort(), [...files].sort());
      assert.deepEqual(readFileSync(join(out, files[1] ?? '')), audio);
      const xml = readFileSync(join(out, files[2] ?? ''), 'utf8');
      assertValidErn(xml);
      const header = child(child(parseXml(xml), 'ern:NewReleaseMessage'), 'MessageHeader');
      assert.equal(child(header, 'MessageSender').PartyId, SENDER.id);
    }
    assert.ok(
      readFileSync(join(out, batches[0]?.folder ?? '', UPC, `${UPC}.xml`), 'utf8').includes('Ночной город'),
    );
  });

  test('--dsp writes one platform; the human output names each batch', async () => {
    const dir = join(out, 'one');
    const exit = await runLabeldesk(
      install,
      ['ddex', 'export', String(releaseId), '--out', dir, '--dsp', 'tidal'],
      DDEX,
    );
    assert.equal(exit.code, 0, exit.stderr);
    assert.match(exit.stdout, new RegExp(`^tidal: batch (\\d{17}) in ${dir}/tidal/\\1 \\(4 files\\)\\n$`));
  });

  test('refuses with one line: an unknown release, a platform not configured, no platforms, no sender', async () => {
    const { DDEX_PLATFORMS: _platforms, ...noPlatforms } = DDEX;
    const cases = [
      [['999999', '--out', out], DDEX, 'labeldesk: not_found: Release not found'],
      [
        [String(releaseId), '--out', out, '--dsp', 'deezer'],
        DDEX,
        'labeldesk: invalid: deezer is not one of the platforms of DDEX_PLATFORMS (dsp)',
      ],
      [
        [String(releaseId), '--out', out],
        noPlatforms,
        'labeldesk: invalid: No platform to write for: DDEX_PLATFORMS lists the platforms and their DPIDs (dsp)',
      ],
      [
        [String(releaseId), '--out', out],
        { DDEX_PLATFORMS: DDEX.DDEX_PLATFORMS },
        'labeldesk: unavailable: DDEX export is not set up on this server: the operator sets DDEX_PARTY_ID and DDEX_PARTY_NAME',
      ],
    ] as const;
    for (const [args, env, line] of cases) {
      const exit = await runLabeldesk(install, ['ddex', 'export', ...args], env);
      assert.deepEqual(exit, { code: 1, stdout: '', stderr: `${line}\n` });
    }
  });
});
