import { Command, CommanderError, Option } from 'commander';
import type { Run } from './commands/output.ts';
import { loadConfig, PROCESS_ROLES } from './config.ts';
import { createDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { ApiError } from './errors.ts';
import { redactPasswords } from './lib/redact.ts';
import { openContext } from './runtime.ts';

/**
 * One line for the operator: our own errors say what is wrong; anything else is shown as it is,
 * except a password (a driver's message may quote the connection string).
 */
function reasonOf(error: unknown): string {
  return redactPasswords(firstLineOf(error));
}

function firstLineOf(error: unknown): string {
  if (error instanceof ApiError) {
    const field = typeof error.extra.field === 'string' ? ` (${error.extra.field})` : '';
    return `${error.code}: ${error.message}${field}`;
  }
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.message;
  return String(error);
}

function fail(error: unknown): never {
  process.stderr.write(`labeldesk: ${reasonOf(error)}\n`);
  process.exit(1);
}

const run: Run = async (action) => {
  const { ctx, close } = await openContext();
  try {
    await action(ctx);
  } finally {
    await close();
  }
};

async function migrate(opts: { json?: boolean }): Promise<void> {
  const config = loadConfig(process.env);
  const handle = createDatabase(config);
  try {
    const applied = await migrateToLatest(handle.db, handle.dialect);
    process.stdout.write(
      opts.json
        ? `${JSON.stringify({ applied, dialect: handle.dialect })}\n`
        : `${applied.length ? `Applied ${applied.join(', ')}` : 'Schema is up to date'} (${handle.dialect}).\n`,
    );
  } finally {
    await handle.destroy();
  }
}

/**
 * Commander's own usage errors (unknown command, missing option) as one `labeldesk: ...` line too.
 * Commands added with addCommand inherit no settings, so every command in the tree is configured.
 */
function oneLineUsageErrors(command: Command): void {
  command.exitOverride().configureOutput({
    outputError: (message, write) =>
      write(
        `labeldesk: ${message
          .replace(/^error: /, '')
          .replace(/\s*\n\s*/g, ' ')
          .trim()}\n`,
      ),
  });
  for (const sub of command.commands) oneLineUsageErrors(sub);
}

export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('labeldesk').description(
    'Labeldesk: the Label Catalog and Release Distribution API server',
  );
  // The server and the document load Fastify and its plugins: only for the commands that need them,
  // so the operator commands start quickly.
  program
    .command('serve')
    .description('run the API server (applies pending migrations first)')
    .addOption(
      new Option(
        '--role <role>',
        'api: HTTP and no jobs; worker: jobs and only /status (env LABELDESK_ROLE)',
      ).choices(PROCESS_ROLES),
    )
    .action(async (opts: { role?: string }) => (await import('./commands/serve.command.ts')).serve(opts));
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'print JSON')
    .action(migrate);
  program
    .command('openapi')
    .description('print the OpenAPI document')
    .action(async () => {
      const { buildOpenApiDocument } = await import('./openapi-document.ts');
      process.stdout.write(`${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
    });
  for (const command of await operatorCommands(argv)) program.addCommand(command);
  oneLineUsageErrors(program);
  return program;
}

/** The operator commands in the order help lists them; each loads its own services when it is loaded. */
const OPERATOR_COMMANDS: ReadonlyArray<readonly [string, () => Promise<Command>]> = [
  ['label', async () => (await import('./commands/label.command.ts')).labelCommand(run)],
  ['key', async () => (await import('./commands/key.command.ts')).keyCommand(run)],
  ['member', async () => (await import('./commands/member.command.ts')).memberCommand(run)],
  ['moderation', async () => (await import('./commands/moderation.command.ts')).moderationCommand(run)],
  ['sandbox', async () => (await import('./commands/sandbox.command.ts')).sandboxCommand(run)],
  ['distributor', async () => (await import('./commands/distributor.command.ts')).distributorCommand(run)],
  ['ddex', async () => (await import('./commands/ddex.command.ts')).ddexCommand(run)],
  ['support', async () => (await import('./commands/support.command.ts')).supportCommand(run)],
  ['finance', async () => (await import('./commands/finance.command.ts')).financeCommand(run)],
  ['media', async () => (await import('./commands/media.command.ts')).mediaCommand(run)],
];
const BUILT_IN = new Set(['serve', 'migrate', 'openapi']);

/**
 * Only the command named on the line is loaded, so `labeldesk label list` starts without the code
 * (and libraries such as TypeBox and sharp) of the other commands; serve, migrate and openapi load
 * none of them. Help, or a name that is no command, loads them all to list them.
 */
function operatorCommands(argv: readonly string[]): Promise<Command[]> {
  const name = argv[2] ?? '';
  if (BUILT_IN.has(name)) return Promise.resolve([]);
  const named = OPERATOR_COMMANDS.filter(([noun]) => noun === name);
  return Promise.all((named.length > 0 ? named : OPERATOR_COMMANDS).map(([, load]) => load()));
}

export async function main(argv: string[]): Promise<void> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    fail(error);
  }
}
