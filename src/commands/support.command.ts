import { Command } from 'commander';
import { approveTakedown } from '../modules/support/takedown.service.ts';
import { parseId, print, type Run } from './output.ts';

export function supportCommand(run: Run): Command {
  const support = new Command('support').description('Support requests made through the API');

  const takedown = new Command('takedown').description(
    'Takedown requests (POST /releases/{id}/takedown-request)',
  );
  takedown
    .command('approve')
    .description(
      'approve a pending takedown request: the distributor takes the release down from every platform',
    )
    .argument('<request_id>', 'support request id', parseId)
    .option('--json', 'print JSON')
    .action((requestId: number, opts: { json?: boolean }) =>
      run(async (ctx) => {
        const approved = await approveTakedown(ctx, requestId);
        print(
          Boolean(opts.json),
          approved,
          () =>
            `Takedown request ${approved.request.id} approved: release ${approved.release.id} (${approved.release.title}) ` +
            'is being removed from every platform; its status changes as the platforms report.',
        );
      }),
    );
  support.addCommand(takedown);

  return support;
}
