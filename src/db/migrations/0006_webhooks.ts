import { type Kysely, sql } from 'kysely';
import { type Dialect, withIdColumn } from '../portable.ts';

/**
 * The durable job queue, webhooks and their delivery log, and the row that orders event ids.
 *
 * A job is due when `run_at` has passed. Claiming a job moves `run_at` a lease into the future, so
 * a job whose worker died becomes due again by itself once the lease runs out.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Publishers lock this row (see events.store.ts), so event ids become visible in increasing order.
  await sql`insert into service_marks (name, at) values ('events.sequence', '1970-01-01T00:00:00.000Z')`.execute(
    db,
  );

  await withIdColumn(db.schema.createTable('jobs'), dialect)
    .addColumn('kind', 'text', (col) => col.notNull())
    /** JSON: what the job's handler needs. */
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('run_at', 'text', (col) => col.notNull())
    /** How many times the job has been claimed. */
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    /** Set on recurring jobs, so that only one of each exists however many workers start. */
    .addColumn('unique_key', 'text', (col) => col.unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('jobs_run_at').on('jobs').columns(['run_at', 'id']).execute();

  await withIdColumn(db.schema.createTable('webhooks'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    /** JSON array of event names. */
    .addColumn('events', 'text', (col) => col.notNull())
    /** The signing secret, AES-256-GCM encrypted under the master key. */
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('active', 'integer', (col) => col.notNull())
    .addColumn('consecutive_failures', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhooks_label_id').on('webhooks').columns(['label_id', 'id']).execute();

  await withIdColumn(db.schema.createTable('webhook_attempts'), dialect)
    .addColumn('webhook_id', 'integer', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('delivery_id', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    /** The receiver's HTTP status; null when no response came (refused address, timeout, network). */
    .addColumn('status', 'integer')
    .addColumn('ok', 'integer', (col) => col.notNull())
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_webhook_id')
    .on('webhook_attempts')
    .columns(['webhook_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_attempts_created_at')
    .on('webhook_attempts')
    .columns(['created_at', 'ok'])
    .execute();
}
