import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createLabel } from '../../src/modules/labels/labels.service.ts';
import { openContext } from '../../src/runtime.ts';
import { givenRelease } from '../helpers/catalog.ts';
import {
  type Exit,
  type Installation,
  newInstallation,
  runLabeldesk,
  selectRows,
} from '../helpers/installation.ts';

const UPC = '036000291452';
const SPOTIFY_URL = 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy';

/** A label and one release at the distributor, written the way the server would have left them. */
async function givenSubmittedRelease(install: Installation): Promise<number> {
  const { ctx, close } = await openContext(loadConfig(install.env));
  try {
    const label = await createLabel(ctx, { name: 'Northern Lights', plan: 'label', contractSigned: true });
    const release = await givenRelease({ ctx }, label.id, { status: 'submitted', upc: UPC });
    return release.id;
  } finally {
    await close();
  }
}

function distributorReport(install: Installation, args: string): Promise<Exit> {
  return runLabeldesk(install, ['distributor', 'report', ...args.split(' ')]);
}

describe('labeldesk distributor report', { concurrency: 1 }, () => {
  let install: Installation;
  let releaseId: number;

  before(async () => {
    install = await newInstallation('distcli');
    releaseId = await givenSubmittedRelease(install);
  });
  after(async () => {
    await install?.dispose();
  });

  test('applies one report and prints it; --json prints {"applied": {...}}', async () => {
    const exit = await distributorReport(
      install,
      `${releaseId} --dsp spotify --stage live --url ${SPOTIFY_URL} --json`,
    );
    assert.deepEqual({ code: exit.code, stderr: exit.stderr }, { code: 0, stderr: '' }, exit.stdout);
    assert.deepEqual(JSON.parse(exit.stdout), {
      applied: {
        release_id: releaseId,
        dsp: 'spotify',
        stage: 'live',
        changed: true,
        release_status: 'live',
      },
    });
    assert.deepEqual(
      await distributorReport(install, `${releaseId} --dsp deezer --stage rejected --detail Artwork`),
      { code: 0, stdout: `Release ${releaseId} on deezer: now rejected; the release is live.\n`, stderr: '' },
    );
    assert.deepEqual(await distributorReport(install, `${releaseId} --dsp spotify --stage live`), {
      code: 0,
      stdout: `Release ${releaseId} on spotify: already live, nothing changed; the release is live.\n`,
      stderr: '',
    });
    const rows = await selectRows<{ dsp: string; stage: string; detail: string | null }>(
      install,
      `select dsp, stage, detail from release_dsp_statuses where release_id = ${releaseId} order by dsp`,
    );
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [
        { dsp: 'deezer', stage: 'rejected', detail: 'Artwork' },
        { dsp: 'spotify', stage: 'live', detail: null },
      ],
    );
    const events = await selectRows<{ event: string }>(install, 'select event from events order by id');
    assert.deepEqual(
      events.map((row) => row.event),
      ['release.dsp_status', 'release.live', 'release.dsp_status'],
    );
    const [release] = await selectRows<{ status: string; store_links: string }>(
      install,
      `select status, store_links from releases where id = ${releaseId}`,
    );
    assert.deepEqual(
      { ...release },
      { status: 'live', store_links: JSON.stringify({ spotify: SPOTIFY_URL }) },
    );
  });

  test('a refused report exits 1 with one line and changes nothing', async () => {
    const cases: Array<[string, string]> = [
      [
        `${releaseId} --dsp spotify --stage online`,
        'labeldesk: invalid: stage must be one of submitted, accepted, live, rejected, failed, taken_down (stage)',
      ],
      [
        `${releaseId} --dsp myspace --stage live`,
        'labeldesk: invalid: myspace is not a platform key (GET /api/v1/platforms lists them) (dsp)',
      ],
      ['987654 --dsp spotify --stage live', 'labeldesk: invalid: No release has id 987654 (release_id)'],
      [
        `${releaseId} --dsp spotify --stage submitted`,
        'labeldesk: conflict: spotify cannot move from live to submitted (stage)',
      ],
      ['x1 --dsp spotify --stage live', 'labeldesk: "x1" is not an id'],
    ];
    const exits = await Promise.all(cases.map(([args]) => distributorReport(install, args)));
    assert.deepEqual(
      exits,
      cases.map(([, reason]) => ({ code: 1, stdout: '', stderr: `${reason}\n` })),
    );
    const rows = await selectRows<{ dsp: string; stage: string }>(
      install,
      `select dsp, stage from release_dsp_statuses where release_id = ${releaseId} order by dsp`,
    );
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [
        { dsp: 'deezer', stage: 'rejected' },
        { dsp: 'spotify', stage: 'live' },
      ],
    );
  });
});
