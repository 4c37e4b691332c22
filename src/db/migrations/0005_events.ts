import type { Kysely } from 'kysely';
import { type Dialect, withIdColumn } from '../portable.ts';

/** The event store: one increasing id sequence for every workspace; a workspace reads its own by id. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('events'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('event', 'text', (col) => col.notNull())
    /** JSON object: the event's `data`. */
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('events_label_id').on('events').columns(['label_id', 'id']).execute();
  await db.schema
    .createIndex('events_label_event_id')
    .on('events')
    .columns(['label_id', 'event', 'id'])
    .execute();
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute();
}
