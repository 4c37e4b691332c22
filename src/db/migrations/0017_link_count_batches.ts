import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * With REDIS_URL, the processes' smart-link counts meet in Redis and are taken from it in batches,
 * each with a token (modules/smart-links/link-counts.redis.ts). A batch's transaction records its
 * token here, so that a batch applied again (its taker died before it could delete it, and another
 * process recovered it) adds nothing twice. Tokens older than a day are pruned.
 *
 * `link_count_namespace` holds one random name that prefixes this database's Redis keys: test runs
 * (PostgreSQL schemas, in-memory SQLite databases) and installations sharing one Redis stay apart,
 * which neither a SQLite path (an in-memory database has none) nor a setting would guarantee.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('link_count_batches')
    .addColumn('token', 'text', (col) => col.primaryKey().notNull())
    .addColumn('applied_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('link_count_batches_applied_at')
    .on('link_count_batches')
    .column('applied_at')
    .execute();
  await db.schema
    .createTable('link_count_namespace')
    .addColumn('namespace', 'text', (col) => col.primaryKey().notNull())
    .execute();
  await sql`insert into link_count_namespace (namespace) values (${randomBytes(8).toString('hex')})`.execute(
    db,
  );
}
