import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';
import { AT_DISTRIBUTOR } from '../distributor/index.ts';
import type { IsrcUse } from './validation.warnings.ts';

/**
 * Of `hashes`, those that a track of another label also carries, on a release that label sent to
 * the distributor. Drafts do not count: anyone with a key could otherwise upload a leaked master
 * into a draft and have the rightful label's submission rejected. Labels are compared by their root
 * (`coalesce(parent_id, id)`), so the release's own label and its sandbox (whose catalog is a copy
 * of the label's, sharing the same files) never count as "another label".
 *
 * This query is deliberately not scoped with `ownedBy`: finding the same recording delivered by a
 * different label is the whole point, so it reads every label's tracks. Only the matching hashes
 * leave this function, never the other label's rows, so nothing of theirs reaches the caller.
 */
export async function audioHashesOfOtherLabels(
  db: Db,
  labelId: number,
  hashes: readonly string[],
): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await db
    .selectFrom('tracks')
    .innerJoin('labels', 'labels.id', 'tracks.label_id')
    .innerJoin('releases', 'releases.id', 'tracks.release_id')
    .select('tracks.audio_hash')
    .distinct()
    .where('tracks.audio_hash', 'in', [...new Set(hashes)])
    .where('releases.status', 'in', AT_DISTRIBUTOR)
    .where((eb) =>
      eb(
        eb.fn.coalesce('labels.parent_id', 'labels.id'),
        '<>',
        eb
          .selectFrom('labels as own')
          .select((inner) => inner.fn.coalesce('own.parent_id', 'own.id').as('root'))
          .where('own.id', '=', labelId),
      ),
    )
    .execute();
  return new Set(rows.flatMap((row) => (row.audio_hash === null ? [] : [row.audio_hash])));
}

/** Tracks of the workspace's other releases that carry one of `isrcs`. */
export async function isrcUsesOnOtherReleases(
  db: Db,
  workspaceId: number,
  releaseId: number,
  isrcs: readonly string[],
): Promise<IsrcUse[]> {
  if (isrcs.length === 0) return [];
  const rows = await db
    .selectFrom('tracks')
    .select(['isrc', 'title', 'title_key', 'release_id'])
    .where(ownedBy('tracks', workspaceId))
    .where('release_id', '<>', releaseId)
    .where('isrc', 'in', [...new Set(isrcs)])
    .orderBy('release_id')
    .orderBy('number')
    .execute();
  return rows.flatMap((row) => (row.isrc === null ? [] : [{ ...row, isrc: row.isrc }]));
}
