import type { Db } from '../../db/database.ts';
import { ownedBy } from '../../db/scope.ts';
import { inBatches } from './finance.batches.ts';

/**
 * Releases and tracks as things sold: what a statement's line is matched to (across real labels),
 * and what a sandbox's invented sales are of.
 */

export interface ReleaseMatch {
  upc: string;
  release_id: number;
  label_id: number;
}

export interface TrackMatch {
  isrc: string;
  track_id: number;
  release_id: number;
  release_upc: string | null;
  label_id: number;
}

/** Releases of real labels (never a sandbox's copy) carrying any of the UPCs. */
export async function releasesByUpc(db: Db, upcs: readonly string[]): Promise<ReleaseMatch[]> {
  const found: ReleaseMatch[] = [];
  await inBatches(upcs, async (batch) => {
    const rows = await db
      .selectFrom('releases')
      .innerJoin('labels', 'labels.id', 'releases.label_id')
      .select(['releases.upc', 'releases.id as release_id', 'releases.label_id'])
      .where('labels.parent_id', 'is', null)
      .where('releases.upc', 'in', batch)
      .orderBy('releases.id')
      .execute();
    for (const row of rows) if (row.upc !== null) found.push({ ...row, upc: row.upc });
  });
  return found;
}

/** Tracks of real labels carrying any of the ISRCs, with their release's UPC. */
export async function tracksByIsrc(db: Db, isrcs: readonly string[]): Promise<TrackMatch[]> {
  const found: TrackMatch[] = [];
  await inBatches(isrcs, async (batch) => {
    const rows = await db
      .selectFrom('tracks')
      .innerJoin('labels', 'labels.id', 'tracks.label_id')
      .innerJoin('releases', (join) =>
        join
          .onRef('releases.id', '=', 'tracks.release_id')
          .onRef('releases.label_id', '=', 'tracks.label_id'),
      )
      .select([
        'tracks.isrc',
        'tracks.id as track_id',
        'tracks.release_id',
        'releases.upc as release_upc',
        'tracks.label_id',
      ])
      .where('labels.parent_id', 'is', null)
      .where('tracks.isrc', 'in', batch)
      .orderBy('tracks.id')
      .execute();
    for (const row of rows) if (row.isrc !== null) found.push({ ...row, isrc: row.isrc });
  });
  return found;
}

export interface Sellable {
  release_id: number;
  upc: string | null;
  track_id: number | null;
  isrc: string | null;
}

/** The workspace's first releases, each with its first track: what a sandbox's invented sales are of. */
export async function firstSellables(db: Db, workspaceId: number, limit: number): Promise<Sellable[]> {
  return db
    .selectFrom('releases')
    .leftJoin('tracks', (join) =>
      join
        .onRef('tracks.release_id', '=', 'releases.id')
        .onRef('tracks.label_id', '=', 'releases.label_id')
        .on('tracks.number', '=', 1),
    )
    .select(['releases.id as release_id', 'releases.upc', 'tracks.id as track_id', 'tracks.isrc'])
    .where(ownedBy('releases', workspaceId))
    .orderBy('releases.id')
    .limit(limit)
    .execute();
}
