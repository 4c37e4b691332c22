import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { findLabel } from '../../src/core/labels.ts';
import { ensureSandboxWorkspace, workspaceOfLabel } from '../../src/modules/labels/labels.service.ts';
import { PLATFORM_KEYS } from '../../src/modules/platforms/platforms.catalog.ts';
import { sendSupportMessage } from '../../src/modules/support/support.service.ts';
import { requestTakedown, TAKEDOWN_APPROVED_REPLY } from '../../src/modules/support/takedown.service.ts';
import { openContext } from '../../src/runtime.ts';
import { givenRelease, givenTrack } from '../helpers/catalog.ts';
import {
  cliJson,
  type Installation,
  newInstallation,
  runLabeldesk,
  selectRows,
} from '../helpers/installation.ts';

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
        dsps: null,
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
      [['distributor.simulated.takedown', { release_id: first.releaseId, dsps: [...PLATFORM_KEYS] }]],
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

describe('labeldesk support list and reply', { concurrency: 1 }, () => {
  let install: Installation;
  let labelId: number;
  let otherId: number;
  let question: number;
  let otherQuestion: number;
  let sandboxQuestion: number;
  let takedown: { requestId: number; releaseId: number };

  /** A message to support made as POST /support makes it, in the label's workspace or its sandbox. */
  async function givenMessage(
    ctx: AppContext,
    id: number,
    message: string,
    options: { sandbox?: boolean } = {},
  ): Promise<number> {
    const label = await findLabel(ctx.db, id);
    assert.ok(label);
    const owner = options.sandbox ? await ensureSandboxWorkspace(ctx, label) : label;
    return (await sendSupportMessage(ctx, workspaceOfLabel(owner), { message })).id;
  }

  before(async () => {
    install = await newInstallation('support_reply');
    const labels = await Promise.all(
      ['Northern Lights', 'Other Records'].map((name) =>
        cliJson<{ label: { id: number } }>(install, ['label', 'create', '--name', name]),
      ),
    );
    [labelId, otherId] = labels.map((created) => created.label.id) as [number, number];
    await withInstallation(install, async (ctx) => {
      question = await givenMessage(ctx, labelId, 'Where is my\nstatement?');
      takedown = await givenPendingTakedown(ctx, labelId, { title: 'Night Drive', upc: '036000291452' });
      otherQuestion = await givenMessage(ctx, otherId, 'x'.repeat(150));
      sandboxQuestion = await givenMessage(ctx, labelId, 'Only testing', { sandbox: true });
    });
  });
  after(async () => {
    await install?.dispose();
  });

  // The sandbox's message (sandboxQuestion) is pending too: it is absent because it is no ticket.
  test('list --json shows the pending requests of real labels, newest first, never a sandbox one', async () => {
    const listed = await cliJson<{ requests: Array<{ created_at: string; updated_at: string }> }>(install, [
      'support',
      'list',
    ]);
    for (const request of listed.requests) {
      assert.match(request.created_at, ISO);
      assert.equal(request.updated_at, request.created_at);
    }
    const at = listed.requests.map((request) => request.created_at);
    assert.deepEqual(listed, {
      requests: [
        {
          id: otherQuestion,
          label_id: otherId,
          type: 'message',
          status: 'pending',
          release_id: null,
          message: 'x'.repeat(150),
          reply: null,
          dsps: null,
          created_at: at[0],
          updated_at: at[0],
        },
        {
          id: takedown.requestId,
          label_id: labelId,
          type: 'takedown',
          status: 'pending',
          release_id: takedown.releaseId,
          message: 'Rights expired',
          reply: null,
          dsps: null,
          created_at: at[1],
          updated_at: at[1],
        },
        {
          id: question,
          label_id: labelId,
          type: 'message',
          status: 'pending',
          release_id: null,
          message: 'Where is my\nstatement?',
          reply: null,
          dsps: null,
          created_at: at[2],
          updated_at: at[2],
        },
      ],
    });
  });

  test('without --json, one line a request with its message on one line, cut when long', async () => {
    const listed = await cliJson<{ requests: Array<{ created_at: string }> }>(install, ['support', 'list']);
    const at = listed.requests.map((request) => request.created_at);
    const exit = await runLabeldesk(install, ['support', 'list']);
    assert.deepEqual(exit, {
      code: 0,
      stdout: `${[
        `${otherQuestion}\tlabel ${otherId}\tmessage\tpending\trelease -\t${at[0]}\t${'x'.repeat(100)}…`,
        `${takedown.requestId}\tlabel ${labelId}\ttakedown\tpending\trelease ${takedown.releaseId}\t${at[1]}\tRights expired`,
        `${question}\tlabel ${labelId}\tmessage\tpending\trelease -\t${at[2]}\tWhere is my statement?`,
      ].join('\n')}\n`,
      stderr: '',
    });
    const none = await runLabeldesk(install, ['support', 'list', '--status', 'completed']);
    assert.deepEqual(none, { code: 0, stdout: 'No support request is completed.\n', stderr: '' });
  });

  test('reply --json answers the message, publishes support.replied; list --status answered shows it', async () => {
    const replied = await cliJson<{ request: { created_at: string; updated_at: string } }>(install, [
      'support',
      'reply',
      String(question),
      '--message',
      '  It is out on the 5th of each month.  ',
    ]);
    assert.match(replied.request.updated_at, ISO);
    assert.deepEqual(replied, {
      request: {
        id: question,
        label_id: labelId,
        type: 'message',
        status: 'answered',
        release_id: null,
        message: 'Where is my\nstatement?',
        reply: 'It is out on the 5th of each month.',
        dsps: null,
        created_at: replied.request.created_at,
        updated_at: replied.request.updated_at,
      },
    });
    const events = await selectRows<{ label_id: number; event: string; data: string; created_at: string }>(
      install,
      'select label_id, event, data, created_at from events',
    );
    assert.deepEqual(
      events.map((event) => [event.label_id, event.event, JSON.parse(event.data), event.created_at]),
      [
        [
          labelId,
          'support.replied',
          {
            request: {
              id: question,
              type: 'message',
              status: 'answered',
              reply: 'It is out on the 5th of each month.',
            },
          },
          replied.request.updated_at,
        ],
      ],
    );
    const answered = await cliJson<{ requests: Array<{ id: number; reply: string | null }> }>(install, [
      'support',
      'list',
      '--status',
      'answered',
    ]);
    assert.deepEqual(
      answered.requests.map((request) => [request.id, request.reply]),
      [[question, 'It is out on the 5th of each month.']],
    );
    const pending = await cliJson<{ requests: Array<{ id: number }> }>(install, ['support', 'list']);
    assert.deepEqual(
      pending.requests.map((request) => request.id),
      [otherQuestion, takedown.requestId],
    );

    const human = await runLabeldesk(install, ['support', 'reply', String(otherQuestion), '--message', 'Hi']);
    assert.deepEqual(human, {
      code: 0,
      stdout: `Support request ${otherQuestion} answered; label ${otherId} gets support.replied.\n`,
      stderr: '',
    });
  });

  test('what cannot be answered exits 1 with one line', async () => {
    const cases = [
      [['999999', '--message', 'Hi'], 'labeldesk: not_found: Support request 999999 not found'],
      [
        [String(takedown.requestId), '--message', 'Hi'],
        `labeldesk: conflict: Support request ${takedown.requestId} is a takedown request: answer it with ` +
          `labeldesk support takedown approve ${takedown.requestId}`,
      ],
      [
        [String(sandboxQuestion), '--message', 'Hi'],
        `labeldesk: conflict: Support request ${sandboxQuestion} was made with a sandbox key: it is no ticket`,
      ],
      [[String(question), '--message', '  '], 'labeldesk: invalid: message must not be empty (message)'],
      [[String(question)], "labeldesk: required option '--message <text>' not specified"],
      [['abc', '--message', 'Hi'], 'labeldesk: "abc" is not an id'],
    ] as const;
    const exits = await Promise.all(
      cases.map(([args]) => runLabeldesk(install, ['support', 'reply', ...args])),
    );
    assert.deepEqual(
      exits,
      cases.map(([, line]) => ({ code: 1, stdout: '', stderr: `${line}\n` })),
    );
    const badStatus = await runLabeldesk(install, ['support', 'list', '--status', 'open']);
    assert.deepEqual(badStatus, {
      code: 1,
      stdout: '',
      stderr: 'labeldesk: --status must be one of pending, approved, completed, answered\n',
    });
  });
});
