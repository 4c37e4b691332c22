import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { workspaceOfLabel } from '../../src/modules/labels/labels.service.ts';
import { findLabel } from '../../src/modules/labels/labels.store.ts';
import { PLATFORM_KEYS } from '../../src/modules/platforms/platforms.catalog.ts';
import { requestTakedown, TAKEDOWN_APPROVED_REPLY } from '../../src/modules/support/takedown.service.ts';
import { openContext } from '../../src/runtime.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import { type Installation, newInstallation, runLabeldesk, selectRows } from '../helpers/installation.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Runs `action` with a context on the installation's database, closed before the command runs. */
async function withInstallation<T>(
  install: Installation,
  action: (ctx: AppContext) => Promise<T>,
): Promise<T> {
  const { ctx, close } = await openContext(loadConfig(install.env));
  try {
    return await action(ctx);
  } finally {
    await close();
  }
}

/** A live release of the label with a pending takedown request for it, made as the API makes it. */
async function givenPendingTakedown(
  ctx: AppContext,
  labelId: number,
  input: { title: string; upc: string; artistId?: number },
): Promise<{ requestId: number; releaseId: number; artistId: number }> {
  const release = await givenRelease({ ctx }, labelId, {
    ...(input.artistId !== undefined && { artist_id: input.artistId }),
    title: input.title,
    status: 'live',
    upc: input.upc,
    live_at: new Date().toISOString(),
  });
  await givenTrack({ ctx }, labelId, release.id, { isrc: 'USRC17607839' });
  const at = new Date().toISOString();
  await ctx.db
    .insertInto('release_dsp_statuses')
    .values(
      PLATFORM_KEYS.map((dsp) => ({
        release_id: release.id,
        label_id: labelId,
        dsp,
        stage: 'live',
        detail: null,
        updated_at: at,
      })),
    )
    .execute();
  const label = await findLabel(ctx.db, labelId);
  assert.ok(label);
  const created = await requestTakedown(ctx, workspaceOfLabel(label), release.id, {
    reason: 'Rights expired',
  });
  return { requestId: created.id, releaseId: release.id, artistId: release.artist_id };
}

describe('labeldesk support takedown approve', { concurrency: 1 }, () => {
  let install: Installation;
  let labelId: number;
  let first: { requestId: number; releaseId: number; artistId: number };

  before(async () => {
    install = await newInstallation('support_cmd');
    const created = await runLabeldesk(install, ['label', 'create', '--name', 'Northern Lights', '--json']);
    assert.equal(created.code, 0, created.stderr);
    labelId = (JSON.parse(created.stdout) as { label: { id: number } }).label.id;
    first = await withInstallation(install, (ctx) =>
      givenPendingTakedown(ctx, labelId, { title: 'Night Drive', upc: '036000291452' }),
    );
  });
  after(async () => {
    await install?.dispose();
  });

  test('--json approves the request, orders the takedown and publishes support.replied', async () => {
    const exit = await runLabeldesk(install, [
      'support',
      'takedown',
      'approve',
      String(first.requestId),
      '--json',
    ]);
    assert.deepEqual({ code: exit.code, stderr: exit.stderr }, { code: 0, stderr: '' }, exit.stdout);
    const printed = JSON.parse(exit.stdout) as { request: { created_at: string; updated_at: string } };
    assert.match(printed.request.created_at, ISO);
    assert.match(printed.request.updated_at, ISO);
    assert.deepEqual(printed, {
      request: {
        id: first.requestId,
        label_id: labelId,
        type: 'takedown',
        status: 'approved',
        release_id: first.releaseId,
        message: 'Rights expired',
        reply: TAKEDOWN_APPROVED_REPLY,
        created_at: printed.request.created_at,
        updated_at: printed.request.updated_at,
      },
      release: { id: first.releaseId, title: 'Night Drive', status: 'live', upc: '036000291452' },
    });

    const jobs = await selectRows<{ kind: string; payload: string }>(
      install,
      'select kind, payload from jobs',
    );
    assert.deepEqual(
      jobs.map((job) => [job.kind, JSON.parse(job.payload)]),
      [['distributor.simulated.takedown', { release_id: first.releaseId }]],
    );
    const events = await selectRows<{ event: string; data: string }>(
      install,
      'select event, data from events',
    );
    assert.deepEqual(
      events.map((event) => [event.event, JSON.parse(event.data)]),
      [
        [
          'support.replied',
          {
            request: {
              id: first.requestId,
              type: 'takedown',
              status: 'approved',
              reply: TAKEDOWN_APPROVED_REPLY,
            },
          },
        ],
      ],
    );
    const releases = await selectRows<{ status: string }>(
      install,
      `select status from releases where id = ${first.releaseId}`,
    );
    assert.deepEqual(releases, [{ status: 'live' }], 'the platforms have not reported yet');
  });

  test('without --json it prints one line', async () => {
    const second = await withInstallation(install, (ctx) =>
      givenPendingTakedown(ctx, labelId, {
        title: 'Daybreak',
        upc: '012345678905',
        artistId: first.artistId,
      }),
    );
    const exit = await runLabeldesk(install, ['support', 'takedown', 'approve', String(second.requestId)]);
    assert.deepEqual(exit, {
      code: 0,
      stdout:
        `Takedown request ${second.requestId} approved: release ${second.releaseId} (Daybreak) is being removed ` +
        'from every platform; its status changes as the platforms report.\n',
      stderr: '',
    });
  });

  test('what is not a pending takedown request exits 1 with one line', async () => {
    const cases = [
      [
        [String(first.requestId)],
        `labeldesk: conflict: Takedown request ${first.requestId} is already approved`,
      ],
      [['999999'], 'labeldesk: not_found: Support request 999999 not found'],
      [['abc'], 'labeldesk: "abc" is not an id'],
    ] as const;
    const exits = await Promise.all(
      cases.map(([args]) => runLabeldesk(install, ['support', 'takedown', 'approve', ...args])),
    );
    assert.deepEqual(
      exits,
      cases.map(([, line]) => ({ code: 1, stdout: '', stderr: `${line}\n` })),
    );
  });
});
