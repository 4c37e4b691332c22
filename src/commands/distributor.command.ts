import { Command } from 'commander';
import type { AppliedReport, PlatformReport } from '../modules/distributor/index.ts';
import { applyOperatorReport } from '../modules/distributor/index.ts';
import { parseId, print, type Run } from './output.ts';

interface ReportOptions {
  dsp: string;
  stage: string;
  detail?: string;
  url?: string;
  json?: boolean;
}

function describe(applied: AppliedReport): string {
  const change = applied.changed ? `now ${applied.stage}` : `already ${applied.stage}, nothing changed`;
  return `Release ${applied.release_id} on ${applied.dsp}: ${change}; the release is ${applied.release_status}.`;
}

export function distributorCommand(run: Run): Command {
  const distributor = new Command('distributor').description(
    'Reports from the distributor, entered by hand (a platform told you by mail, a correction)',
  );

  distributor
    .command('report')
    .description(
      "set one platform's stage of a release, as a distributor report does (release.dsp_status, the release status, release.live)",
    )
    .argument('<release_id>', 'release id', parseId)
    .requiredOption('--dsp <key>', 'platform key, such as spotify')
    .requiredOption('--stage <stage>', 'submitted, accepted, live, rejected, failed or taken_down')
    .option('--detail <text>', 'why, in words (a rejection reason)')
    .option('--url <address>', "the release's address on the platform, kept as its store link while live")
    .option('--json', 'print JSON')
    .action((releaseId: number, opts: ReportOptions) =>
      run(async (ctx) => {
        const report: PlatformReport = {
          release_id: releaseId,
          dsp: opts.dsp,
          stage: opts.stage,
          detail: opts.detail ?? null,
          url: opts.url ?? null,
        };
        const applied = await applyOperatorReport(ctx, report);
        print(Boolean(opts.json), { applied }, () => describe(applied));
      }),
    );

  return distributor;
}
