import type { Kysely } from 'kysely';

/**
 * `/analytics/traffic` sums a year of a label's breakdown rows (about 22,000: a day's dozen sources,
 * four devices, twenty languages and 24 hours). With `count` in an index led by the period's range,
 * both engines answer from the index alone: SQLite otherwise looks up each row of its table by rowid,
 * PostgreSQL each heap tuple.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('label_traffic_breakdowns_counts')
    .on('label_traffic_breakdowns')
    .columns(['label_id', 'dimension', 'day', 'value', 'count'])
    .execute();
}
