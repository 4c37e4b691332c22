import { Command } from 'commander';
import { ROLE_NAMES } from '../db/values.ts';
import { addMember } from '../modules/team/index.ts';
import { parseId, print, type Run } from './output.ts';

export function memberCommand(run: Run): Command {
  const member = new Command('member').description('Team members of a label');

  member
    .command('add')
    .description('add a member to a label (uses a seat of the plan)')
    .requiredOption('--label <id>', 'label id', parseId)
    .requiredOption('--login <login>', 'login name')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--role <role>', ROLE_NAMES.join(', '))
    .option('--email <email>', 'e-mail address (stored, never returned by the API)')
    .option('--json', 'print JSON')
    .action(
      (opts: { label: number; login: string; name: string; role: string; email?: string; json?: boolean }) =>
        run(async (ctx) => {
          const added = await addMember(ctx, {
            labelId: opts.label,
            login: opts.login,
            name: opts.name,
            role: opts.role,
            ...(opts.email && { email: opts.email }),
          });
          print(
            Boolean(opts.json),
            { member: added },
            () => `Added ${added.login} (${added.role_title}) as user ${added.user_id}.`,
          );
        }),
    );

  return member;
}
