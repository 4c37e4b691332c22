import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';
import type { ReleaseStatus } from '../../db/values.ts';

/** A remark on a release, as a condition on its row. */
type ReleaseCondition = (eb: ExpressionBuilder<Database, 'releases'>) => Expression<SqlBool>;

/** Release remarks by count name; each condition is served by an index that starts with label_id. */
export function releaseRemarks(workspaceId: number, staleBefore: string) {
  return {
    releases_without_upc: (eb) => eb('releases.upc', 'is', null),
    stale_drafts: (eb) =>
      eb.and([eb('releases.status', '=', 'draft'), eb('releases.created_at', '<', staleBefore)]),
    dsp_rejections: (eb) =>
      eb(
        'releases.id',
        'in',
        eb
          .selectFrom('release_dsp_statuses')
          .select('release_dsp_statuses.release_id')
          .where(ownedBy('release_dsp_statuses', workspaceId))
          .where('release_dsp_statuses.stage', '=', 'rejected'),
      ),
    live_without_store_links: (eb) =>
      eb.and([eb('releases.status', '=', 'live'), eb('releases.store_links', '=', '{}')]),
  } satisfies Record<string, ReleaseCondition>;
}

export type ReleaseRemark = keyof ReturnType<typeof releaseRemarks>;

export async function catalogCounts(
  db: Db,
  workspaceId: number,
): Promise<{ releases: number; live: number; drafts: number }> {
  const row = await db
    .selectFrom('releases')
    .select((eb) => [
      eb.fn.countAll().as('releases'),
      eb.fn.countAll().filterWhere('status', '=', 'live').as('live'),
      eb.fn.countAll().filterWhere('status', '=', 'draft').as('drafts'),
    ])
    .where(ownedBy('releases', workspaceId))
    .executeTakeFirstOrThrow();
  return { releases: Number(row.releases), live: Number(row.live), drafts: Number(row.drafts) };
}

export async function countReleasesWhere(
  db: Db,
  workspaceId: number,
  condition: ReleaseCondition,
): Promise<number> {
  const row = await db
    .selectFrom('releases')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('releases', workspaceId))
    .where(condition)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface ReleaseIssueRow {
  id: number;
  title: string;
  status: ReleaseStatus;
  created_at: string;
}

/** The first `limit` releases by id that match. */
export async function releasesWhere(
  db: Db,
  workspaceId: number,
  condition: ReleaseCondition,
  limit: number,
): Promise<ReleaseIssueRow[]> {
  return db
    .selectFrom('releases')
    .select(['releases.id', 'releases.title', 'releases.status', 'releases.created_at'])
    .where(ownedBy('releases', workspaceId))
    .where(condition)
    .orderBy('releases.id')
    .limit(limit)
    .execute();
}

/** Platforms that rejected each of these releases. */
export async function rejectingDsps(
  db: Db,
  workspaceId: number,
  releaseIds: readonly number[],
): Promise<Array<{ release_id: number; dsp: string }>> {
  if (releaseIds.length === 0) return [];
  return db
    .selectFrom('release_dsp_statuses')
    .select(['release_id', 'dsp'])
    .where(ownedBy('release_dsp_statuses', workspaceId))
    .where('stage', '=', 'rejected')
    .where('release_id', 'in', releaseIds)
    .orderBy('dsp')
    .execute();
}

export async function countTracksWithoutIsrc(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('tracks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('tracks', workspaceId))
    .where('tracks.isrc', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface TrackIssueRow {
  id: number;
  title: string;
  release_id: number;
  release_title: string;
  status: ReleaseStatus;
}

export async function tracksWithoutIsrc(
  db: Db,
  workspaceId: number,
  limit: number,
): Promise<TrackIssueRow[]> {
  return db
    .selectFrom('tracks')
    .innerJoin('releases', 'releases.id', 'tracks.release_id')
    .select([
      'tracks.id',
      'tracks.title',
      'tracks.release_id',
      'releases.title as release_title',
      'releases.status',
    ])
    .where(ownedBy('tracks', workspaceId))
    .where('tracks.isrc', 'is', null)
    .orderBy('tracks.id')
    .limit(limit)
    .execute();
}

/**
 * Releases with at least one remark: one of the release conditions, or a track without an ISRC.
 * One pass over the label's releases; the two id lists come from their indexes once each.
 */
export async function countReleasesWithRemarks(
  db: Db,
  workspaceId: number,
  conditions: readonly ReleaseCondition[],
): Promise<number> {
  const withoutIsrc = db
    .selectFrom('tracks')
    .select('tracks.release_id')
    .where(ownedBy('tracks', workspaceId))
    .where('tracks.isrc', 'is', null);
  const row = await db
    .selectFrom('releases')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(ownedBy('releases', workspaceId))
    .where((eb) =>
      eb.or([...conditions.map((condition) => condition(eb)), eb('releases.id', 'in', withoutIsrc)]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
