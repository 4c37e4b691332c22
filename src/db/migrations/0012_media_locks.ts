import type { Kysely } from 'kysely';

/**
 * One row per stored media object that an upload is keeping or a collection is removing, so that
 * processes sharing a bucket (or a folder) agree: see media.cleanup.ts for the protocol. Rows are
 * removed again when neither is under way; a process that died leaves a row whose times run out.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('media_locks')
    /** `<kind>/<sha256>`: variants and the original go together. */
    .addColumn('object_key', 'text', (col) => col.primaryKey())
    /** Uploads between putting the object and committing the row that refers to it. */
    .addColumn('holders', 'integer', (col) => col.notNull().defaultTo(0))
    /** The holds count only until then (a process that died while holding never lets go). */
    .addColumn('held_until', 'text', (col) => col.notNull())
    /** Set while a collection removes the object; uploads of the same content wait for it. */
    .addColumn('collecting_until', 'text')
    .execute();
}
