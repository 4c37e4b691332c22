import type { Kysely } from 'kysely';
import { type Dialect, fractionType, withIdColumn } from '../portable.ts';

/**
 * Artists, releases, tracks, their platform statuses and history. `*_key` columns hold the
 * lowercased text that search and case-insensitive uniqueness compare against, so both engines
 * compare the same Unicode-lowercased text (SQLite's own lower() only knows ASCII).
 * `copied_from` is set on a sandbox workspace's copy of a label's row.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('labels').addColumn('sandbox_copied_at', 'text').execute();

  await withIdColumn(db.schema.createTable('artists'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('name_key', 'text', (col) => col.notNull())
    .addColumn('store_a_url', 'text')
    .addColumn('store_b_url', 'text')
    .addColumn('copied_from', 'integer')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('artists_label_name')
    .unique()
    .on('artists')
    .columns(['label_id', 'name_key'])
    .execute();

  await withIdColumn(db.schema.createTable('releases'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('artist_id', 'integer', (col) => col.notNull().references('artists.id'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('title_key', 'text', (col) => col.notNull())
    .addColumn('version', 'text')
    .addColumn('genre', 'text', (col) => col.notNull())
    .addColumn('release_date', 'text', (col) => col.notNull())
    .addColumn('original_release_date', 'text')
    .addColumn('upc', 'text')
    /** JSON: "worldwide" or an array of ISO 3166-1 alpha-2 codes. */
    .addColumn('territories', 'text', (col) => col.notNull())
    /** JSON array of {name}. */
    .addColumn('featured_artists', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('review_status', 'text')
    .addColumn('review_comment', 'text')
    .addColumn('cover_hash', 'text')
    .addColumn('cover_format', 'text')
    .addColumn('cover_width', 'integer')
    .addColumn('cover_height', 'integer')
    .addColumn('cover_bytes', 'integer')
    /** JSON object: platform key to address. */
    .addColumn('store_links', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('copied_from', 'integer')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('submitted_at', 'text')
    .execute();
  const releaseIndexes: Array<[string, string[]]> = [
    ['releases_label_created', ['label_id', 'created_at', 'id']],
    ['releases_label_release_date', ['label_id', 'release_date', 'id']],
    ['releases_label_title', ['label_id', 'title_key', 'id']],
    ['releases_label_updated', ['label_id', 'updated_at', 'id']],
    ['releases_label_status_created', ['label_id', 'status', 'created_at', 'id']],
    ['releases_label_artist_created', ['label_id', 'artist_id', 'created_at', 'id']],
    ['releases_cover_hash', ['cover_hash']],
  ];
  for (const [name, columns] of releaseIndexes) {
    await db.schema.createIndex(name).on('releases').columns(columns).execute();
  }
  await db.schema
    .createIndex('releases_label_upc')
    .unique()
    .on('releases')
    .columns(['label_id', 'upc'])
    .execute();

  await withIdColumn(db.schema.createTable('tracks'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('release_id', 'integer', (col) => col.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('number', 'integer', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('title_key', 'text', (col) => col.notNull())
    .addColumn('version', 'text')
    .addColumn('version_type', 'text')
    .addColumn('isrc', 'text')
    .addColumn('explicit', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('instrumental', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('language', 'text')
    .addColumn('preview_start_sec', fractionType(dialect))
    /** JSON arrays: [{name, roles}], [{name, role}], [{name}]. */
    .addColumn('writers', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('contributors', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('featured', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('lyrics_text', 'text')
    /** JSON array of {time, text} when the lyrics are timed. */
    .addColumn('lyrics_lines', 'text')
    .addColumn('ai_service', 'text')
    .addColumn('ai_elements', 'text')
    .addColumn('audio_hash', 'text')
    .addColumn('audio_format', 'text')
    .addColumn('audio_filename', 'text')
    .addColumn('audio_bytes', 'bigint')
    .addColumn('duration_sec', fractionType(dialect))
    .addColumn('sample_rate', 'integer')
    .addColumn('bit_depth', 'integer')
    .addColumn('channels', 'integer')
    .addColumn('copied_from', 'integer')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('tracks_release_number')
    .on('tracks')
    .columns(['release_id', 'number'])
    .execute();
  await db.schema.createIndex('tracks_label_isrc').on('tracks').columns(['label_id', 'isrc']).execute();
  await db.schema.createIndex('tracks_label_id').on('tracks').columns(['label_id', 'id']).execute();
  await db.schema.createIndex('tracks_audio_hash').on('tracks').column('audio_hash').execute();

  await db.schema
    .createTable('release_dsp_statuses')
    .addColumn('release_id', 'integer', (col) => col.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('dsp', 'text', (col) => col.notNull())
    .addColumn('stage', 'text', (col) => col.notNull())
    .addColumn('detail', 'text')
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('release_dsp_statuses_pk', ['release_id', 'dsp'])
    .execute();
  await db.schema
    .createIndex('release_dsp_statuses_label_stage')
    .on('release_dsp_statuses')
    .columns(['label_id', 'stage'])
    .execute();

  await withIdColumn(db.schema.createTable('release_history'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('release_id', 'integer', (col) => col.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('review_status', 'text')
    .addColumn('comment', 'text')
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('release_history_release')
    .on('release_history')
    .columns(['release_id', 'id'])
    .execute();
}
