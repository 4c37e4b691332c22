import type { Kysely } from 'kysely';

/**
 * The platforms a takedown request names (issue 21): a JSON array of platform keys, or null for
 * every platform the release is on (every request made before this, and messages).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('support_requests').addColumn('dsps', 'text').execute();
}
