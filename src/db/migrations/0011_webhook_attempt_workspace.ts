import type { Kysely } from 'kysely';

/**
 * Which workspace's event each delivery attempt carried, so a sandbox key reads only its sandbox's
 * part of a shared webhook's log. Attempts logged before this have none and show to live keys only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_attempts')
    .addColumn('workspace_id', 'integer', (col) => col.references('labels.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('webhook_attempts_webhook_workspace')
    .on('webhook_attempts')
    .columns(['webhook_id', 'workspace_id', 'id'])
    .execute();
}
