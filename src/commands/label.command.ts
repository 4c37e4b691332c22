import { Command } from 'commander';
import { createLabel, type LabelUpdate, listLabelViews, updateLabel } from '../modules/labels/index.ts';
import { collect, parseId, print, type Run } from './output.ts';

function parseLimit(entry: string): readonly [string, number | null | 'default'] {
  const match = /^([a-z_]+)=(.+)$/.exec(entry.trim());
  if (!match?.[1] || !match[2])
    throw new Error(`--limit takes NAME=N, NAME=unlimited or NAME=default (got "${entry}")`);
  const [, name, value] = match;
  if (value === 'default') return [name, 'default'];
  if (value === 'unlimited') return [name, null];
  if (!/^\d+$/.test(value)) throw new Error(`--limit ${name} must be a whole number, unlimited or default`);
  return [name, Number(value)];
}

function parseCommission(value: string): number | 'default' {
  if (value === 'default') return 'default';
  const rate = Number(value);
  if (value.trim() === '' || !Number.isFinite(rate))
    throw new Error(`--commission takes a fraction such as 0.1 or default`);
  return rate;
}

export function labelCommand(run: Run): Command {
  const label = new Command('label').description('Labels: the tenants of this server');

  label
    .command('create')
    .description('create a label')
    .requiredOption('--name <name>', 'display name')
    .option('--plan <plan>', 'start, label, pro or enterprise', 'start')
    .option('--contract-signed', 'the label has signed its distribution contract', false)
    .option('--json', 'print JSON')
    .action((opts: { name: string; plan: string; contractSigned: boolean; json?: boolean }) =>
      run(async (ctx) => {
        const created = await createLabel(ctx, {
          name: opts.name,
          plan: opts.plan,
          contractSigned: opts.contractSigned,
        });
        print(Boolean(opts.json), { label: created }, () =>
          [
            `Created label ${created.id} "${created.name}" (slug ${created.slug}, plan ${created.plan}).`,
            `Next: labeldesk key create --label ${created.id} --scopes all`,
          ].join('\n'),
        );
      }),
    );

  label
    .command('update')
    .description("change a label's plan, contract or per-label terms")
    .argument('<id>', 'label id', parseId)
    .option('--plan <plan>', 'start, label, pro or enterprise')
    .option('--contract-signed', 'mark the contract as signed')
    .option('--no-contract', 'mark the contract as not signed')
    .option(
      '--limit <name=n>',
      'override one plan limit: NAME=N, NAME=unlimited or NAME=default (repeatable)',
      collect,
    )
    .option('--commission <rate>', 'override the commission rate (fraction) or "default"')
    .option('--json', 'print JSON')
    .action(
      (
        id: number,
        opts: {
          plan?: string;
          contractSigned?: boolean;
          contract?: boolean;
          limit?: string[];
          commission?: string;
          json?: boolean;
        },
      ) =>
        run(async (ctx) => {
          const update: LabelUpdate = {
            ...(opts.plan !== undefined && { plan: opts.plan }),
            ...(opts.contractSigned && { contractSigned: true }),
            ...(opts.contract === false && { contractSigned: false }),
            ...(opts.limit && { limits: opts.limit.map(parseLimit) }),
            ...(opts.commission !== undefined && { commission: parseCommission(opts.commission) }),
          };
          const updated = await updateLabel(ctx, id, update);
          print(
            Boolean(opts.json),
            { label: updated },
            () => `Updated label ${updated.id} "${updated.name}".`,
          );
        }),
    );

  label
    .command('list')
    .description('list labels')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      run(async (ctx) => {
        const labels = await listLabelViews(ctx);
        print(Boolean(opts.json), { labels }, () =>
          labels.length === 0
            ? 'No labels yet: labeldesk label create --name "My Label"'
            : labels
                .map(
                  (l) =>
                    `${l.id}\t${l.slug}\t${l.plan}\t${l.contract_signed ? 'contract' : 'no contract'}\t${l.name}`,
                )
                .join('\n'),
        );
      }),
    );

  return label;
}
