import { Command } from 'commander';
import { resetSandbox } from '../modules/sandbox/index.ts';
import { parseId, print, type Run } from './output.ts';

export function sandboxCommand(run: Run): Command {
  const sandbox = new Command('sandbox').description("A label's sandbox (the workspace of its test keys)");

  sandbox
    .command('reset')
    .description("drop the sandbox's catalog and copy the label's catalog into it again")
    .requiredOption('--label <id>', 'label id', parseId)
    .option('--json', 'print JSON')
    .action((opts: { label: number; json?: boolean }) =>
      run(async (ctx) => {
        const reset = await resetSandbox(ctx, opts.label);
        print(
          Boolean(opts.json),
          { label_id: opts.label, ...reset },
          () => `Sandbox ${reset.sandbox_id} of label ${opts.label} now holds a fresh copy of its catalog.`,
        );
      }),
    );

  return sandbox;
}
