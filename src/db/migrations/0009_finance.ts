import type { Kysely } from 'kysely';
import { type Dialect, fractionType, withIdColumn } from '../portable.ts';

/**
 * Finance, fed by the distributor's royalty statements. Money the label is paid (payouts,
 * withdrawals) is kept in integer cents; a statement line keeps its revenue in integer millionths
 * of a dollar, the precision sales reports carry, so that a payout is the exact sum of its lines
 * rounded once. A statement is known by the digest of its bytes: the same file is imported once.
 * Also: support requests by status, the operator's queue (`labeldesk support list`).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('royalty_statements'), dialect)
    .addColumn('content_hash', 'text', (col) => col.notNull().unique())
    .addColumn('file_name', 'text', (col) => col.notNull())
    .addColumn('line_count', 'integer', (col) => col.notNull())
    .addColumn('matched_count', 'integer', (col) => col.notNull())
    .addColumn('revenue_micros', 'bigint', (col) => col.notNull())
    .addColumn('imported_at', 'text', (col) => col.notNull())
    .execute();

  await withIdColumn(db.schema.createTable('royalty_lines'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('statement_id', 'integer', (col) =>
      col.references('royalty_statements.id').onDelete('cascade'),
    )
    .addColumn('line_number', 'integer', (col) => col.notNull())
    .addColumn('period', 'text', (col) => col.notNull())
    .addColumn('release_id', 'integer', (col) => col.references('releases.id').onDelete('set null'))
    .addColumn('track_id', 'integer', (col) => col.references('tracks.id').onDelete('set null'))
    .addColumn('upc', 'text')
    .addColumn('isrc', 'text')
    .addColumn('dsp', 'text', (col) => col.notNull())
    .addColumn('country', 'text', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('revenue_micros', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('royalty_lines_label_period')
    .on('royalty_lines')
    .columns(['label_id', 'period', 'id'])
    .execute();
  await db.schema
    .createIndex('royalty_lines_label_release')
    .on('royalty_lines')
    .columns(['label_id', 'release_id', 'period'])
    .execute();
  await db.schema.createIndex('royalty_lines_statement').on('royalty_lines').column('statement_id').execute();

  await withIdColumn(db.schema.createTable('royalty_unmatched_lines'), dialect)
    .addColumn('statement_id', 'integer', (col) =>
      col.notNull().references('royalty_statements.id').onDelete('cascade'),
    )
    .addColumn('line_number', 'integer', (col) => col.notNull())
    .addColumn('period', 'text', (col) => col.notNull())
    .addColumn('upc', 'text')
    .addColumn('isrc', 'text')
    .addColumn('dsp', 'text', (col) => col.notNull())
    .addColumn('country', 'text', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('revenue_micros', 'bigint', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('royalty_unmatched_lines_statement')
    .on('royalty_unmatched_lines')
    .columns(['statement_id', 'line_number'])
    .execute();

  await withIdColumn(db.schema.createTable('payouts'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('statement_id', 'integer', (col) =>
      col.references('royalty_statements.id').onDelete('cascade'),
    )
    .addColumn('number', 'text', (col) => col.notNull().unique())
    .addColumn('period', 'text', (col) => col.notNull())
    .addColumn('amount_cents', 'bigint', (col) => col.notNull())
    .addColumn('commission_rate', fractionType(dialect), (col) => col.notNull())
    .addColumn('commission_cents', 'bigint', (col) => col.notNull())
    .addColumn('net_cents', 'bigint', (col) => col.notNull())
    .addColumn('applied_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('payouts_label_period')
    .on('payouts')
    .columns(['label_id', 'period', 'id'])
    .execute();

  await withIdColumn(db.schema.createTable('withdrawals'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('amount_cents', 'bigint', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('withdrawals_label_status')
    .on('withdrawals')
    .columns(['label_id', 'status', 'id'])
    .execute();

  await db.schema
    .createIndex('support_requests_status')
    .on('support_requests')
    .columns(['status', 'id'])
    .execute();
}
