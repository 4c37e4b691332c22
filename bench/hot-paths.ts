// The data the hot-path benches read: a label whose key never meets a limit, a catalog with a full
// first page of releases, and a smart link with a target on six platforms.
import type { AppContext } from '../src/context.ts';
import { authenticateKey } from '../src/modules/keys/keys.service.ts';
import { isPlatformKey } from '../src/modules/platforms/platforms.catalog.ts';
import { createSmartLink } from '../src/modules/smart-links/smart-links.service.ts';
import { seedCatalog } from './catalog-seed.ts';
import { prepareLabel } from './in-process.ts';
import { BENCH_LINK } from './load.ts';

/** Enough releases that a page of 20 is full, each with tracks and platform statuses. */
const CATALOG = { releases: 60, tracksPerRelease: 3, artists: 8 };

export interface HotPaths {
  key: string;
  /** A release of the catalog, for its card. */
  releaseId: number;
  artistId: number;
  smartLinkId: number;
  /** The smart link page's path. */
  linkPath: string;
}

export async function seedHotPaths(ctx: AppContext): Promise<HotPaths> {
  const { labelId, key } = await prepareLabel(ctx, 'Hot Paths Bench');
  const { samples } = await seedCatalog(ctx.db, labelId, CATALOG, () => {});
  const sample = samples[0];
  if (!sample) throw new Error('the seeded catalog has no release');
  const auth = await authenticateKey(ctx, key);
  if (!auth) throw new Error('the bench key does not authenticate');
  const link = await createSmartLink(ctx, auth, {
    ...BENCH_LINK,
    targets: BENCH_LINK.targets.map(({ platform, url }) => {
      if (!isPlatformKey(platform)) throw new Error(`${platform} is not a platform key`);
      return { platform, url };
    }),
  });
  return {
    key,
    releaseId: sample.releaseId,
    artistId: sample.artistId,
    smartLinkId: link.id,
    linkPath: new URL(link.url).pathname,
  };
}
