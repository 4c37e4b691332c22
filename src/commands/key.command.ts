import { Command } from 'commander';
import { createKey, listKeys, revokeKey } from '../modules/keys/index.ts';
import { commaList, parseId, print, type Run } from './output.ts';

export function keyCommand(run: Run): Command {
  const key = new Command('key').description('API keys');

  key
    .command('create')
    .description('issue an API key; the full key is printed this once')
    .requiredOption('--label <id>', 'label id', parseId)
    .requiredOption('--scopes <scopes>', 'comma-separated scope names, or "all"', commaList)
    .option('--sandbox', 'a sandbox key (svc_test_...) working on the label sandbox', false)
    .option('--allow-ip <list>', 'comma-separated IPv4/IPv6 addresses and CIDR ranges', commaList)
    .option('--json', 'print JSON')
    .action(
      (opts: { label: number; scopes: string[]; sandbox: boolean; allowIp?: string[]; json?: boolean }) =>
        run(async (ctx) => {
          const issued = await createKey(ctx, {
            labelId: opts.label,
            scopes: opts.scopes,
            sandbox: opts.sandbox,
            ...(opts.allowIp && { allowIps: opts.allowIp }),
          });
          print(
            Boolean(opts.json),
            { key: issued.key, prefix: issued.prefix, scopes: issued.scopes, sandbox: issued.sandbox },
            () =>
              [
                issued.key,
                `(prefix ${issued.prefix}; scopes ${issued.scopes.join(',')}${issued.sandbox ? '; sandbox' : ''})`,
                'Store it now: it is not shown again.',
              ].join('\n'),
          );
        }),
    );

  key
    .command('list')
    .description("list a label's keys (never the keys themselves)")
    .requiredOption('--label <id>', 'label id', parseId)
    .option('--json', 'print JSON')
    .action((opts: { label: number; json?: boolean }) =>
      run(async (ctx) => {
        const keys = await listKeys(ctx, opts.label);
        print(Boolean(opts.json), { keys }, () =>
          keys.length === 0
            ? 'No keys.'
            : keys
                .map(
                  (k) =>
                    `${k.prefix}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\t${k.sandbox ? 'sandbox' : 'live'}\t${k.scopes.join(',')}`,
                )
                .join('\n'),
        );
      }),
    );

  key
    .command('revoke')
    .description('revoke a key by its prefix; effective on the next request')
    .argument('<prefix>', 'the key prefix shown by key list')
    .option('--json', 'print JSON')
    .action((prefix: string, opts: { json?: boolean }) =>
      run(async (ctx) => {
        const revoked = await revokeKey(ctx, prefix);
        print(Boolean(opts.json), { key: revoked }, () => `Revoked ${revoked.prefix}.`);
      }),
    );

  return key;
}
