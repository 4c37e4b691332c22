import type { Kysely } from 'kysely';

/**
 * Fair shares in the job queue: each kind of job has its own slots, and jobs of a kind that share a
 * `group_key` (a label's webhook deliveries) hold at most a share of them. A claim reads only the
 * due jobs of kinds with free slots, passing over groups at their share: the index serves that read
 * per kind, in order, with the group at hand; it replaces the index on `run_at` alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('group_key', 'text').execute();
  await db.schema
    .createIndex('jobs_kind_run_at')
    .on('jobs')
    .columns(['kind', 'run_at', 'id', 'group_key'])
    .execute();
  await db.schema.dropIndex('jobs_run_at').execute();
}
