import type { Kysely } from 'kysely';
import { type Dialect, withIdColumn } from '../portable.ts';

/**
 * The release pipeline: when a release first went live (so `release.live` is sent once), the
 * counters that number assigned UPCs and ISRCs, support requests (a takedown request is one), and
 * the signatures of inbound distributor reports already applied (replay protection).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('releases').addColumn('live_at', 'text').execute();

  await db.schema
    .createTable('sequences')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('value', 'bigint', (col) => col.notNull())
    .execute();
  // Assigned identifiers are unique across labels: looked up by value alone.
  await db.schema.createIndex('releases_upc').on('releases').column('upc').execute();
  await db.schema.createIndex('tracks_isrc').on('tracks').column('isrc').execute();

  await withIdColumn(db.schema.createTable('support_requests'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('message', 'text')
    .addColumn('release_id', 'integer', (col) => col.references('releases.id').onDelete('set null'))
    .addColumn('reply', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('support_requests_label_id')
    .on('support_requests')
    .columns(['label_id', 'id'])
    .execute();
  await db.schema
    .createIndex('support_requests_release')
    .on('support_requests')
    .columns(['release_id', 'type', 'status'])
    .execute();

  await db.schema
    .createTable('distributor_report_signatures')
    .addColumn('signature', 'text', (col) => col.primaryKey())
    .addColumn('received_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('distributor_report_signatures_received_at')
    .on('distributor_report_signatures')
    .column('received_at')
    .execute();
}
