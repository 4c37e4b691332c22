import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type {
  ArtistsTable,
  ReleaseDspStatusesTable,
  ReleaseHistoryTable,
  ReleasesTable,
  TracksTable,
} from '../../db/schema.ts';
import { ownedBy } from '../../db/scope.ts';

/**
 * Claims the one copy of the label's catalog for the sandbox: true for exactly one caller. A
 * concurrent claim waits on the row until the first one's transaction ends, and then finds it taken.
 */
export async function claimCatalogCopy(db: Db, sandboxId: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('labels')
    .set({ sandbox_copied_at: at })
    .where('id', '=', sandboxId)
    .where('parent_id', 'is not', null)
    .where('sandbox_copied_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function markCatalogCopied(db: Db, sandboxId: number, at: string): Promise<void> {
  await db.updateTable('labels').set({ sandbox_copied_at: at }).where('id', '=', sandboxId).execute();
}

const ARTIST_COLUMNS = [
  'label_id',
  'name',
  'name_key',
  'store_a_url',
  'store_b_url',
  'copied_from',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ArtistsTable)[];

const RELEASE_COLUMNS = [
  'label_id',
  'artist_id',
  'type',
  'title',
  'title_key',
  'version',
  'genre',
  'release_date',
  'original_release_date',
  'upc',
  'territories',
  'featured_artists',
  'status',
  'review_status',
  'review_comment',
  'cover_hash',
  'cover_format',
  'cover_width',
  'cover_height',
  'cover_bytes',
  'store_links',
  'copied_from',
  'created_at',
  'updated_at',
  'submitted_at',
  'live_at',
] as const satisfies readonly (keyof ReleasesTable)[];

const TRACK_COLUMNS = [
  'label_id',
  'release_id',
  'number',
  'title',
  'title_key',
  'version',
  'version_type',
  'isrc',
  'explicit',
  'instrumental',
  'language',
  'preview_start_sec',
  'writers',
  'contributors',
  'featured',
  'lyrics_text',
  'lyrics_lines',
  'ai_service',
  'ai_elements',
  'audio_hash',
  'audio_format',
  'audio_filename',
  'audio_bytes',
  'duration_sec',
  'sample_rate',
  'bit_depth',
  'channels',
  'audio_analysis',
  'copied_from',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof TracksTable)[];

const DSP_STATUS_COLUMNS = [
  'release_id',
  'label_id',
  'dsp',
  'stage',
  'detail',
  'updated_at',
] as const satisfies readonly (keyof ReleaseDspStatusesTable)[];

const HISTORY_COLUMNS = [
  'label_id',
  'release_id',
  'status',
  'review_status',
  'comment',
  'at',
] as const satisfies readonly (keyof ReleaseHistoryTable)[];

/**
 * The SELECT list of a copy, built from the INSERT's column list so that the two line up by
 * construction: each column is read from the same column of `table`, unless `sources` names where
 * the copy takes it from (the sandbox's id, the copied parent, the original's id).
 */
function copiedColumns<Column extends string>(
  table: string,
  columns: readonly Column[],
  sources: Partial<Record<Column, RawBuilder<unknown>>>,
) {
  return columns.map((column) => (sources[column] ?? sql.ref(`${table}.${column}`)).as(column));
}

/** Copies rows with INSERT … SELECT: the catalog never passes through the process. */
export async function copyArtists(db: Db, labelId: number, sandboxId: number): Promise<void> {
  await db
    .insertInto('artists')
    .columns(ARTIST_COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom('artists')
        .select(
          copiedColumns('artists', ARTIST_COLUMNS, {
            label_id: sql.val(sandboxId),
            copied_from: sql.ref('artists.id'),
          }),
        )
        .where(ownedBy('artists', labelId)),
    )
    .execute();
}

export async function copyReleases(db: Db, labelId: number, sandboxId: number): Promise<void> {
  await db
    .insertInto('releases')
    .columns(RELEASE_COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom('releases')
        .innerJoin('artists as a', (join) =>
          join.onRef('a.copied_from', '=', 'releases.artist_id').on('a.label_id', '=', sandboxId),
        )
        .select(
          copiedColumns('releases', RELEASE_COLUMNS, {
            label_id: sql.val(sandboxId),
            artist_id: sql.ref('a.id'),
            copied_from: sql.ref('releases.id'),
          }),
        )
        .where(ownedBy('releases', labelId)),
    )
    .execute();
}

export async function copyTracks(db: Db, labelId: number, sandboxId: number): Promise<void> {
  await db
    .insertInto('tracks')
    .columns(TRACK_COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom('tracks')
        .innerJoin('releases as r', (join) =>
          join.onRef('r.copied_from', '=', 'tracks.release_id').on('r.label_id', '=', sandboxId),
        )
        .select(
          copiedColumns('tracks', TRACK_COLUMNS, {
            label_id: sql.val(sandboxId),
            release_id: sql.ref('r.id'),
            copied_from: sql.ref('tracks.id'),
          }),
        )
        .where(ownedBy('tracks', labelId)),
    )
    .execute();
}

export async function copyReleaseRecords(db: Db, labelId: number, sandboxId: number): Promise<void> {
  await db
    .insertInto('release_dsp_statuses')
    .columns(DSP_STATUS_COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom('release_dsp_statuses')
        .innerJoin('releases as r', (join) =>
          join
            .onRef('r.copied_from', '=', 'release_dsp_statuses.release_id')
            .on('r.label_id', '=', sandboxId),
        )
        .select(
          copiedColumns('release_dsp_statuses', DSP_STATUS_COLUMNS, {
            release_id: sql.ref('r.id'),
            label_id: sql.val(sandboxId),
          }),
        )
        .where(ownedBy('release_dsp_statuses', labelId)),
    )
    .execute();
  await db
    .insertInto('release_history')
    .columns(HISTORY_COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom('release_history')
        .innerJoin('releases as r', (join) =>
          join.onRef('r.copied_from', '=', 'release_history.release_id').on('r.label_id', '=', sandboxId),
        )
        .select(
          copiedColumns('release_history', HISTORY_COLUMNS, {
            label_id: sql.val(sandboxId),
            release_id: sql.ref('r.id'),
          }),
        )
        .where(ownedBy('release_history', labelId))
        .orderBy('release_history.id'),
    )
    .execute();
}

/** The stored files the sandbox refers to, so that those only it used can go after a reset. */
export async function sandboxFiles(db: Db, sandboxId: number) {
  const [covers, audio] = await Promise.all([
    db
      .selectFrom('releases')
      .select(['cover_hash as hash', 'cover_format as format'])
      .where(ownedBy('releases', sandboxId))
      .where('cover_hash', 'is not', null)
      .execute(),
    db
      .selectFrom('tracks')
      .select(['audio_hash as hash', 'audio_format as format'])
      .where(ownedBy('tracks', sandboxId))
      .where('audio_hash', 'is not', null)
      .execute(),
  ]);
  const known = (rows: Array<{ hash: string | null; format: string | null }>) =>
    rows.flatMap((row) => (row.hash && row.format ? [{ hash: row.hash, format: row.format }] : []));
  return { covers: known(covers), audio: known(audio) };
}

export async function dropSandboxCatalog(db: Db, sandboxId: number): Promise<void> {
  await db.deleteFrom('support_requests').where(ownedBy('support_requests', sandboxId)).execute();
  // Invented finance is made from the catalog: made again, from the new copy, when next read.
  await db.deleteFrom('royalty_lines').where(ownedBy('royalty_lines', sandboxId)).execute();
  await db.deleteFrom('payouts').where(ownedBy('payouts', sandboxId)).execute();
  await db.deleteFrom('withdrawals').where(ownedBy('withdrawals', sandboxId)).execute();
  await db.deleteFrom('smart_links').where(ownedBy('smart_links', sandboxId)).execute();
  await db.deleteFrom('releases').where(ownedBy('releases', sandboxId)).execute();
  await db.deleteFrom('artists').where(ownedBy('artists', sandboxId)).execute();
}
