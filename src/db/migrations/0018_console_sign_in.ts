import type { Kysely } from 'kysely';
import { type Dialect, withIdColumn } from '../portable.ts';

/**
 * Sign-in for team members to the label console (modules/console). A member's password, one-time
 * invite addresses and sessions are kept apart from `members`, and go with the member: removing a
 * member removes them (its sessions end at once). Tokens are stored as SHA-256 digests, so a copy of
 * the database signs no one in. Failed sign-ins are kept for the per-address and per-login limits,
 * which every process must see alike.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('member_passwords')
    .addColumn('member_id', 'integer', (col) =>
      col.primaryKey().notNull().references('members.id').onDelete('cascade'),
    )
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('set_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('console_invites')
    .addColumn('token_digest', 'text', (col) => col.primaryKey().notNull())
    .addColumn('member_id', 'integer', (col) => col.notNull().references('members.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('console_invites_member').on('console_invites').column('member_id').execute();
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_digest', 'text', (col) => col.primaryKey().notNull())
    .addColumn('member_id', 'integer', (col) => col.notNull().references('members.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_member').on('console_sessions').column('member_id').execute();
  await withIdColumn(db.schema.createTable('console_sign_in_failures'), dialect)
    .addColumn('bucket', 'text', (col) => col.notNull())
    .addColumn('failed_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('console_sign_in_failures_bucket')
    .on('console_sign_in_failures')
    .columns(['bucket', 'failed_at'])
    .execute();
}
