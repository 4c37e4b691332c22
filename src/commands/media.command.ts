import { Command } from 'commander';
import { parseMediaUrl } from '../config.ts';
import { migrateMedia } from '../modules/media/index.ts';
import { print, type Run } from './output.ts';

export function mediaCommand(run: Run): Command {
  const media = new Command('media').description('Stored covers and audio (MEDIA_URL)');

  media
    .command('migrate')
    .description(
      'copy every stored file into another store (s3://bucket/prefix), skipping those already there; then point MEDIA_URL at it',
    )
    .requiredOption('--to <url>', 's3://bucket/optional/prefix (S3_ENDPOINT and AWS_* say how to reach it)')
    .option(
      '--from <url>',
      'file:///path of the media to copy (default: MEDIA_URL, or the data dir’s media/)',
    )
    .option('--json', 'print JSON')
    .action((opts: { to: string; from?: string; json?: boolean }) =>
      run(async (ctx) => {
        const to = parseMediaUrl('--to', opts.to);
        const config = opts.from ? { ...ctx.config, media: parseMediaUrl('--from', opts.from) } : ctx.config;
        const count = await migrateMedia(config, to);
        print(
          Boolean(opts.json),
          { to: opts.to, ...count },
          () =>
            `Copied ${count.copied} files to ${opts.to}; ${count.skipped} were there already. Set MEDIA_URL=${opts.to} to use it.`,
        );
      }),
    );

  return media;
}
