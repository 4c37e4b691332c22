import type { Kysely } from 'kysely';
import { type Dialect, fractionType, withIdColumn } from '../portable.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('labels'), dialect)
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull().unique())
    .addColumn('plan', 'text', (col) => col.notNull())
    .addColumn('contract_signed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('limit_overrides', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('commission_override', fractionType(dialect))
    .addColumn('parent_id', 'integer', (col) => col.references('labels.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('labels_parent_id').unique().on('labels').column('parent_id').execute();

  await withIdColumn(db.schema.createTable('api_keys'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('prefix', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('scopes', 'text', (col) => col.notNull())
    .addColumn('sandbox', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('allow_ips', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_label_id').on('api_keys').column('label_id').execute();
  await db.schema.createIndex('api_keys_prefix').unique().on('api_keys').column('prefix').execute();

  await withIdColumn(db.schema.createTable('members'), dialect)
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('login', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('email', 'text')
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('joined_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text')
    .addUniqueConstraint('members_label_login', ['label_id', 'login'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('api_key_id', 'integer', (col) => col.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (col) => col.notNull())
    .addColumn('request_hash', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['api_key_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created_at')
    .on('idempotency_keys')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('service_marks')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
}
