import type { Kysely } from 'kysely';

/**
 * POST /webhooks/{id}/recover asks, for each event since a moment, whether the webhook ever took it
 * with a 2xx: one index lookup per event in place of a walk through the webhook's whole log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_attempts_webhook_event')
    .on('webhook_attempts')
    .columns(['webhook_id', 'event_id'])
    .execute();
}
