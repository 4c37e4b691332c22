import { Command } from 'commander';
import { decide, moderationQueue } from '../modules/moderation/index.ts';
import { parseId, print, type Run } from './output.ts';

function requireComment(value: string): string {
  const comment = value.trim();
  if (!comment) throw new Error('--comment must not be empty');
  return comment;
}

export function moderationCommand(run: Run): Command {
  const moderation = new Command('moderation').description('Releases waiting for review (MODERATION=manual)');

  moderation
    .command('list')
    .description('releases waiting for review, oldest first, with the findings of the automated checks')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      run(async (ctx) => {
        const queue = await moderationQueue(ctx);
        print(Boolean(opts.json), { releases: queue }, () =>
          queue.length === 0
            ? 'No release waits for review.'
            : queue
                .map((item) =>
                  [
                    `${item.release_id}\tlabel ${item.label_id}\t${item.type}\t${item.artist} - ${item.title}\t${item.tracks} tracks\tsubmitted ${item.submitted_at ?? '-'}`,
                    ...item.findings.map((finding) => `\t! ${finding.field}: ${finding.message}`),
                  ].join('\n'),
                )
                .join('\n'),
        );
      }),
    );

  moderation
    .command('approve')
    .description('approve a release: it gets its UPC and ISRCs and goes to the distributor')
    .argument('<release_id>', 'release id', parseId)
    .option('--comment <text>', 'shown to the label as review_comment', requireComment)
    .option('--json', 'print JSON')
    .action((releaseId: number, opts: { comment?: string; json?: boolean }) =>
      run(async (ctx) => {
        await decide(ctx, releaseId, { approve: true, comment: opts.comment ?? null });
        print(
          Boolean(opts.json),
          { release_id: releaseId, review_status: 'approved', status: 'submitted' },
          () => `Release ${releaseId} approved and sent to the distributor.`,
        );
      }),
    );

  moderation
    .command('reject')
    .description('reject a release: it returns to draft with the comment as review_comment')
    .argument('<release_id>', 'release id', parseId)
    .requiredOption('--comment <text>', 'what the label must fix', requireComment)
    .option('--json', 'print JSON')
    .action((releaseId: number, opts: { comment: string; json?: boolean }) =>
      run(async (ctx) => {
        await decide(ctx, releaseId, { approve: false, comment: opts.comment });
        print(
          Boolean(opts.json),
          { release_id: releaseId, review_status: 'rejected', status: 'draft' },
          () => `Release ${releaseId} rejected; it is a draft again.`,
        );
      }),
    );

  return moderation;
}
