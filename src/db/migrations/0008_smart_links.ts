import type { Kysely } from 'kysely';
import { type Dialect, withIdColumn } from '../portable.ts';

/**
 * Smart links and what their public pages record. Visits are never stored one by one: each view or
 * click adds to counters per link and UTC day (`smart_link_days`) and per link, day and dimension
 * value (`smart_link_breakdowns`: source, device, language, hour, platform), so statistics read a
 * few hundred rows whatever the traffic. No address of a visitor is kept; pre-save e-mail addresses
 * are stored encrypted, with a keyed digest that tells a repeat sign-up apart.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('smart_links'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('code', 'text', (col) => col.notNull().unique())
    .addColumn('slug', 'text', (col) => col.unique())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('artist_name', 'text', (col) => col.notNull())
    .addColumn('search_key', 'text', (col) => col.notNull())
    .addColumn('release_date', 'text', (col) => col.notNull())
    .addColumn('release_id', 'integer', (col) => col.references('releases.id').onDelete('set null'))
    .addColumn('enabled', 'integer', (col) => col.notNull())
    .addColumn('theme', 'text', (col) => col.notNull())
    .addColumn('accent', 'text')
    .addColumn('cta_text', 'text')
    .addColumn('hide_branding', 'integer', (col) => col.notNull())
    .addColumn('views', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('clicks', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('presaves', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('collecting_since', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('smart_links_label_id').on('smart_links').columns(['label_id', 'id']).execute();
  await db.schema
    .createIndex('smart_links_release')
    .on('smart_links')
    .columns(['label_id', 'release_id'])
    .execute();

  await withIdColumn(db.schema.createTable('smart_link_targets'), dialect)
    .addColumn('link_id', 'integer', (col) => col.notNull().references('smart_links.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('platform', 'text', (col) => col.notNull())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('clicks', 'integer', (col) => col.notNull().defaultTo(0))
    .addUniqueConstraint('smart_link_targets_platform', ['link_id', 'platform'])
    .execute();

  await db.schema
    .createTable('smart_link_days')
    .addColumn('link_id', 'integer', (col) => col.notNull().references('smart_links.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (col) => col.notNull())
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('views', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('clicks', 'integer', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('smart_link_days_pk', ['link_id', 'day'])
    .execute();
  await db.schema
    .createIndex('smart_link_days_label')
    .on('smart_link_days')
    .columns(['label_id', 'day'])
    .execute();

  await db.schema
    .createTable('smart_link_breakdowns')
    .addColumn('link_id', 'integer', (col) => col.notNull().references('smart_links.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (col) => col.notNull())
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('dimension', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('smart_link_breakdowns_pk', ['link_id', 'dimension', 'day', 'value'])
    .execute();
  await db.schema
    .createIndex('smart_link_breakdowns_label')
    .on('smart_link_breakdowns')
    .columns(['label_id', 'dimension', 'day'])
    .execute();

  await withIdColumn(db.schema.createTable('smart_link_presaves'), dialect)
    .addColumn('link_id', 'integer', (col) => col.notNull().references('smart_links.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (col) => col.notNull())
    .addColumn('email_digest', 'text', (col) => col.notNull())
    .addColumn('email_sealed', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('smart_link_presaves_email', ['link_id', 'email_digest'])
    .execute();
  await db.schema
    .createIndex('smart_link_presaves_label')
    .on('smart_link_presaves')
    .columns(['label_id', 'created_at'])
    .execute();
}
