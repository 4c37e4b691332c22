import { Command } from 'commander';
import { SUPPORT_REQUEST_STATUSES, type SupportRequestStatus } from '../db/values.ts';
import {
  approveTakedown,
  MAX_MESSAGE_LENGTH,
  type OperatorRequestView,
  replyToMessage,
  supportQueue,
} from '../modules/support/index.ts';
import { parseId, print, type Run } from './output.ts';

/** How much of a message one list line shows; --json prints it whole. */
const SHOWN_MESSAGE_LENGTH = 100;

function parseStatus(value: string): SupportRequestStatus {
  const status = SUPPORT_REQUEST_STATUSES.find((candidate) => candidate === value);
  if (status === undefined) throw new Error(`--status must be one of ${SUPPORT_REQUEST_STATUSES.join(', ')}`);
  return status;
}

/** A message on one line: its spaces and line breaks collapsed, cut short when long. */
function oneLine(message: string | null): string {
  if (message === null) return '-';
  const line = message.replace(/\s+/g, ' ');
  const characters = [...line];
  return characters.length > SHOWN_MESSAGE_LENGTH
    ? `${characters.slice(0, SHOWN_MESSAGE_LENGTH).join('')}…`
    : line;
}

function listLine(request: OperatorRequestView): string {
  return [
    request.id,
    `label ${request.label_id}`,
    request.type,
    request.status,
    `release ${request.release_id ?? '-'}`,
    request.created_at,
    oneLine(request.message),
  ].join('\t');
}

function listCommand(run: Run): Command {
  return new Command('list')
    .description(
      "real labels' requests (never a sandbox's), newest first: the pending ones unless --status says otherwise",
    )
    .option('--status <status>', `one of ${SUPPORT_REQUEST_STATUSES.join(', ')}`, parseStatus)
    .option('--json', 'print JSON (messages whole)')
    .action((opts: { status?: SupportRequestStatus; json?: boolean }) =>
      run(async (ctx) => {
        const status = opts.status ?? 'pending';
        const requests = await supportQueue(ctx, status);
        print(Boolean(opts.json), { requests }, () =>
          requests.length === 0 ? `No support request is ${status}.` : requests.map(listLine).join('\n'),
        );
      }),
    );
}

function replyCommand(run: Run): Command {
  return new Command('reply')
    .description(
      'answer a message: it becomes answered with the reply and the label gets support.replied ' +
        '(again to replace the reply; takedown requests are answered by takedown approve)',
    )
    .argument('<request_id>', 'support request id', parseId)
    .requiredOption('--message <text>', `the reply, 1-${MAX_MESSAGE_LENGTH} characters`)
    .option('--json', 'print JSON')
    .action((requestId: number, opts: { message: string; json?: boolean }) =>
      run(async (ctx) => {
        const request = await replyToMessage(ctx, requestId, opts.message);
        print(
          Boolean(opts.json),
          { request },
          () => `Support request ${request.id} answered; label ${request.label_id} gets support.replied.`,
        );
      }),
    );
}

function takedownCommand(run: Run): Command {
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
  return takedown;
}

export function supportCommand(run: Run): Command {
  return new Command('support')
    .description('Support requests made through the API: messages and takedown requests')
    .addCommand(listCommand(run))
    .addCommand(replyCommand(run))
    .addCommand(takedownCommand(run));
}
