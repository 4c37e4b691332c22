import type { Config, MediaLocation } from '../../config.ts';
import { mediaObjects } from './media.objects.ts';

export interface MigrationCount {
  readonly copied: number;
  readonly skipped: number;
}

/**
 * Copies every object of the configured media store into `to` under the same key; objects already
 * there (same key, so same content) are skipped, so a second run after a failure goes on where the
 * first stopped.
 */
export async function migrateMedia(config: Config, to: MediaLocation): Promise<MigrationCount> {
  const source = mediaObjects(config);
  const target = mediaObjects(Object.freeze({ ...config, media: to }));
  let copied = 0;
  let skipped = 0;
  for await (const key of source.keys()) {
    if (await target.has(key)) {
      skipped += 1;
      continue;
    }
    const copiedNow = await source.withLocalFile(key, async (path) => {
      await target.put(key, path, 'copy');
      return true;
    });
    if (copiedNow) copied += 1;
  }
  return { copied, skipped };
}
