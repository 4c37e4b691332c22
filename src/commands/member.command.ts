import { Command } from 'commander';
import { ROLE_NAMES } from '../db/values.ts';
import { createInvite } from '../modules/console/index.ts';
import { addMember, getMember, removeMember } from '../modules/team/index.ts';
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
          const invite = await createInvite(ctx, added.user_id);
          print(
            Boolean(opts.json),
            { member: added, ...invite },
            () =>
              `Added ${added.login} (${added.role_title}) as user ${added.user_id}.\n` +
              `Console invite (one use, until ${invite.expires_at}): ${invite.invite_url}`,
          );
        }),
    );

  member
    .command('invite')
    .description('a fresh one-time console address where the member sets a password (also to reset one)')
    .argument('<login>', 'the member’s login')
    .requiredOption('--label <id>', 'label id', parseId)
    .option('--json', 'print JSON')
    .action((login: string, opts: { label: number; json?: boolean }) =>
      run(async (ctx) => {
        const found = await getMember(ctx, opts.label, login);
        const invite = await createInvite(ctx, found.user_id);
        print(
          Boolean(opts.json),
          { member: found, ...invite },
          () =>
            `Console invite for ${found.login} (one use, until ${invite.expires_at}): ${invite.invite_url}`,
        );
      }),
    );

  member
    .command('remove')
    .description('remove a member from a label (frees the seat; their console sessions end at once)')
    .argument('<login>', 'the member’s login')
    .requiredOption('--label <id>', 'label id', parseId)
    .option('--json', 'print JSON')
    .action((login: string, opts: { label: number; json?: boolean }) =>
      run(async (ctx) => {
        const removed = await removeMember(ctx, opts.label, login);
        print(
          Boolean(opts.json),
          { member: removed },
          () => `Removed ${removed.login} from label ${opts.label}.`,
        );
      }),
    );

  return member;
}
