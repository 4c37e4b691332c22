import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { countFor, type LabelCount, ownedBy } from '../../db/scope.ts';
import { USAGE_NAMES, type UsageName } from './plans.catalog.ts';

/*
 * What counts against each limit is a rule of the plans, so the counts live here rather than in the
 * stores of the modules whose rows they count: those modules check their limits through plans, and
 * plans would otherwise import them back.
 */

/** Every release of the workspace, drafts included, from the counters of migration 0004. */
const releaseCount: LabelCount = (eb, labelId) =>
  eb
    .selectFrom('release_counts')
    .select((inner) => inner.fn.coalesce(inner.fn.sum<number | string>('n'), inner.val(0)).as('n'))
    .where(ownedBy('release_counts', labelId));

const artistCount: LabelCount = (eb, labelId) =>
  eb
    .selectFrom('artists')
    .select((inner) => inner.fn.countAll().as('n'))
    .where(ownedBy('artists', labelId));

const memberCount: LabelCount = (eb, labelId) =>
  eb
    .selectFrom('members')
    .select((inner) => inner.fn.countAll().as('n'))
    .where(ownedBy('members', labelId));

/** Links that count toward the plan's limit: the enabled ones (a disabled link gives its place back). */
const enabledSmartLinkCount: LabelCount = (eb, labelId) =>
  eb
    .selectFrom('smart_links')
    .select((inner) => inner.fn.countAll().as('n'))
    .where(ownedBy('smart_links', labelId))
    .where('enabled', '=', 1);

/** Live, unrevoked keys: the ones the plan's key limit counts. */
const liveKeyCount: LabelCount = (eb, labelId) =>
  eb
    .selectFrom('api_keys')
    .select((inner) => inner.fn.countAll().as('n'))
    .where(ownedBy('api_keys', labelId))
    .where('sandbox', '=', 0)
    .where('revoked_at', 'is', null);

const webhookCount: LabelCount = (eb, labelId) =>
  eb
    .selectFrom('webhooks')
    .select((count) => count.fn.countAll<number>().as('n'))
    .where(ownedBy('webhooks', labelId));

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
