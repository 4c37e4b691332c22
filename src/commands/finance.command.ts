import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import {
  createWithdrawal,
  type ImportReport,
  importStatement,
  moveWithdrawal,
  unmatchedLines,
  type WithdrawalOutcome,
} from '../modules/finance/index.ts';
import { parseId, print, type Run } from './output.ts';

async function readStatementFile(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new Error(`cannot read ${path} (${reason})`);
  }
}

function describeImport(report: ImportReport): string {
  const { statement } = report;
  const head = report.already_imported
    ? `${statement.file_name} was imported before (statement ${statement.id}, ${statement.imported_at}): nothing changed.`
    : `Statement ${statement.id} imported from ${statement.file_name}: ${statement.lines} lines, ${statement.matched} matched, ${statement.unmatched} unmatched, revenue ${statement.revenue} USD.`;
  const payouts = report.payouts.map(
    (payout) =>
      `  payout ${payout.number}\tlabel ${payout.label_id}\t${payout.period}\tamount ${payout.amount}\tcommission ${payout.commission}\tnet ${payout.net_amount}`,
  );
  const unmatched = report.unmatched_lines.map(
    (line) =>
      `  unmatched line ${line.line}\t${line.period}\tupc ${line.upc ?? '-'}\tisrc ${line.isrc ?? '-'}\t${line.dsp}\t${line.country}\t${line.revenue} USD\t${line.reason}`,
  );
  return [head, ...payouts, ...unmatched].join('\n');
}

function describeWithdrawal({ withdrawal, balance }: WithdrawalOutcome): string {
  return (
    `Withdrawal ${withdrawal.id} of label ${withdrawal.label_id}: ${withdrawal.amount} USD, ${withdrawal.status}. ` +
    `Balance: ${balance.available} USD available of ${balance.earned} earned.`
  );
}

export function financeCommand(run: Run): Command {
  const finance = new Command('finance').description('Royalty statements and withdrawals');

  finance
    .command('import')
    .description(
      'import a royalty statement (CSV: period, upc, isrc, dsp, country, quantity, revenue); the same file twice changes nothing',
    )
    .argument('<file>', 'the CSV file')
    .option('--json', 'print JSON')
    .action((file: string, opts: { json?: boolean }) =>
      run(async (ctx) => {
        const report = await importStatement(ctx, file, await readStatementFile(file));
        print(Boolean(opts.json), report, () => describeImport(report));
      }),
    );

  finance
    .command('unmatched')
    .description(
      'statement lines no release or track matched, the latest statement first (they are paid to no one)',
    )
    .option('--statement <id>', 'only this statement', parseId)
    .option('--json', 'print JSON')
    .action((opts: { statement?: number; json?: boolean }) =>
      run(async (ctx) => {
        const lines = await unmatchedLines(ctx, opts.statement);
        print(Boolean(opts.json), { unmatched_lines: lines }, () =>
          lines.length === 0
            ? 'Every statement line matched a release or a track.'
            : lines
                .map(
                  (line) =>
                    `statement ${line.statement_id} line ${line.line}\t${line.period}\tupc ${line.upc ?? '-'}\tisrc ${line.isrc ?? '-'}\t${line.dsp}\t${line.country}\t${line.revenue} USD\t${line.reason}`,
                )
                .join('\n'),
        );
      }),
    );

  const withdrawal = new Command('withdrawal').description("Withdrawals of a label's balance");
  withdrawal
    .command('create')
    .description('ask for a withdrawal: at least MIN_WITHDRAWAL and at most what the balance covers')
    .requiredOption('--label <id>', 'label id', parseId)
    .requiredOption('--amount <dollars>', 'amount in US dollars, such as 120.50')
    .option('--json', 'print JSON')
    .action((opts: { label: number; amount: string; json?: boolean }) =>
      run(async (ctx) => {
        const outcome = await createWithdrawal(ctx, opts.label, opts.amount);
        print(Boolean(opts.json), outcome, () => describeWithdrawal(outcome));
      }),
    );
  withdrawal
    .command('set')
    .description('move a withdrawal on: pending -> processing -> paid | rejected')
    .argument('<id>', 'withdrawal id', parseId)
    .requiredOption('--status <status>', 'processing, paid or rejected')
    .option('--json', 'print JSON')
    .action((id: number, opts: { status: string; json?: boolean }) =>
      run(async (ctx) => {
        const outcome = await moveWithdrawal(ctx, id, opts.status);
        print(Boolean(opts.json), outcome, () => describeWithdrawal(outcome));
      }),
    );
  finance.addCommand(withdrawal);

  return finance;
}
