import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { countFor, type LabelCount } from '../../db/scope.ts';
import { artistCount } from '../artists/artists.store.ts';
import { liveKeyCount } from '../keys/keys.store.ts';
import { releaseCount } from '../releases/releases.store.ts';
import { enabledSmartLinkCount } from '../smart-links/smart-links.store.ts';
import { memberCount } from '../team/team.store.ts';
import { webhookCount } from '../webhooks/webhooks.store.ts';
import { USAGE_NAMES, type UsageName } from './plans.catalog.ts';

/**
 * How each limit's use is counted in one workspace: `/me` shows the label's own; a sandbox's
 * limit checks count the sandbox's copy.
 */
const USAGE_COUNTS: Record<UsageName, LabelCount> = {
  releases: releaseCount,
  artists: artistCount,
  members: memberCount,
  links: enabledSmartLinkCount,
  api_keys: liveKeyCount,
  webhooks: webhookCount,
};

/** Every count in one query, prepared once: /me shows them all on each call. */
const selectUsage = preparedQuery((db: Db, labelId: number) =>
  db.selectNoFrom((eb) => USAGE_NAMES.map((name) => USAGE_COUNTS[name](eb, labelId).as(name))),
);

export async function selectUsageCounts(db: Db, labelId: number): Promise<Record<string, unknown>> {
  const [row] = await selectUsage(db, labelId);
  return row ?? {};
}

export function countUsage(db: Db, name: UsageName, labelId: number): Promise<number> {
  return countFor(db, USAGE_COUNTS[name], labelId);
}
