import { Command } from 'commander';
import { exportBatches, type WrittenBatch } from '../modules/ddex/index.ts';
import { collect, parseId, print, type Run } from './output.ts';

interface ExportOptions {
  out: string;
  dsp?: string[];
  json?: boolean;
}

function describe(dir: string, batches: readonly WrittenBatch[]): string {
  return batches
    .map(
      (batch) =>
        `${batch.dsp}: batch ${batch.batch_id} in ${dir}/${batch.folder} (${batch.files.length} files)`,
    )
    .join('\n');
}

export function ddexCommand(run: Run): Command {
  const ddex = new Command('ddex').description('DDEX ERN 4.3 batches, written by hand');

  ddex
    .command('export')
    .description(
      'write the batches the ddex distributor writes (one per platform of DDEX_PLATFORMS): <platform>/<batch id>/<UPC>/<UPC>.xml, its audio and cover, and BatchComplete_<batch id>.xml last',
    )
    .argument('<release_id>', 'release id', parseId)
    .requiredOption('--out <dir>', 'the folder to write into (created when missing)')
    .option('--dsp <key>', 'only this platform (repeat for several)', collect)
    .option('--json', 'print JSON')
    .action((releaseId: number, opts: ExportOptions) =>
      run(async (ctx) => {
        const batches = await exportBatches(ctx, releaseId, opts.out, opts.dsp);
        print(Boolean(opts.json), { batches }, () => describe(opts.out, batches));
      }),
    );

  return ddex;
}
