import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createLabel } from '../../src/modules/labels/labels.service.ts';
import { openContext } from '../../src/runtime.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { type Installation, newInstallation, runLabeldesk } from '../helpers/installation.ts';

let install: Installation;

before(async () => {
  install = await newInstallation('moderation_cli');
});
after(() => install.dispose());

/** Works on the installation's database in this process, as the server would, then lets go of it. */
async function withContext<T>(work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const { ctx, close } = await openContext(loadConfig(install.env));
  try {
    return await work(ctx);
  } finally {
    await close();
  }
}

test('moderation list shows waiting releases with the automated findings; approve and reject decide them', async () => {
  const { first, second } = await withContext(async (ctx) => {
    const label = await createLabel(ctx, { name: 'Harbor Records', plan: 'label', contractSigned: true });
    const waiting = {
      status: 'submitting',
      review_status: 'pending',
      submitted_at: ctx.clock.now().toISOString(),
    };
    const artist = await givenArtist({ ctx }, label.id);
    const first = await givenRelease({ ctx }, label.id, {
      title: 'Night Drive',
      artist_id: artist.id,
      ...waiting,
    });
    await givenTrack({ ctx }, label.id, first.id, {
      contributors: '[{"name":"Ari Lund","role":"Producer"}]',
    });
    const second = await givenRelease({ ctx }, label.id, {
      title: 'Coastline',
      artist_id: artist.id,
      ...waiting,
    });
    return { first, second };
  });

  const listed = await runLabeldesk(install, ['moderation', 'list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const queue = JSON.parse(listed.stdout) as {
    releases: Array<{
      release_id: number;
      title: string;
      tracks: number;
      findings: Array<{ code: string; field: string }>;
    }>;
  };
  assert.deepEqual(
    queue.releases.map((item) => [item.release_id, item.title, item.tracks]),
    [
      [first.id, 'Night Drive', 1],
      [second.id, 'Coastline', 0],
    ],
  );
  // No cover and no audio was ever stored for these rows: the checks say so.
  assert.ok(queue.releases[0]?.findings.some((finding) => finding.field === 'cover'));
  assert.ok(queue.releases[0]?.findings.some((finding) => finding.field === 'tracks.0.audio'));

  const approved = await runLabeldesk(install, [
    'moderation',
    'approve',
    String(first.id),
    '--comment',
    'Fine',
  ]);
  assert.deepEqual(approved, {
    code: 0,
    stdout: `Release ${first.id} approved and sent to the distributor.\n`,
    stderr: '',
  });
  const rejected = await runLabeldesk(install, [
    'moderation',
    'reject',
    String(second.id),
    '--comment',
    'No tracks',
  ]);
  assert.deepEqual(rejected, {
    code: 0,
    stdout: `Release ${second.id} rejected; it is a draft again.\n`,
    stderr: '',
  });

  const refusals = await Promise.all([
    runLabeldesk(install, ['moderation', 'approve', String(first.id)]),
    runLabeldesk(install, ['moderation', 'reject', String(first.id)]),
    runLabeldesk(install, ['moderation', 'approve', '999999']),
  ]);
  assert.deepEqual(refusals, [
    {
      code: 1,
      stdout: '',
      stderr: `labeldesk: conflict: Release ${first.id} is not waiting for moderation (it is submitted)\n`,
    },
    { code: 1, stdout: '', stderr: "labeldesk: required option '--comment <text>' not specified\n" },
    { code: 1, stdout: '', stderr: 'labeldesk: not_found: Release not found\n' },
  ]);

  const rows = await withContext((ctx) =>
    ctx.db
      .selectFrom('releases')
      .select(['id', 'status', 'review_status', 'review_comment'])
      .orderBy('id')
      .execute(),
  );
  assert.deepEqual(rows, [
    { id: first.id, status: 'submitted', review_status: 'approved', review_comment: 'Fine' },
    { id: second.id, status: 'draft', review_status: 'rejected', review_comment: 'No tracks' },
  ]);
  const empty = await runLabeldesk(install, ['moderation', 'list']);
  assert.deepEqual(empty, { code: 0, stdout: 'No release waits for review.\n', stderr: '' });
});
