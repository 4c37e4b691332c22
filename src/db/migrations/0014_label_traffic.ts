import { type Kysely, sql } from 'kysely';

/**
 * Label-wide daily totals of the smart-link counters, kept by the same writes as the links' own
 * (issue 19), so that label analytics read one row per day (`label_traffic_days`) and per day,
 * dimension and value (`label_traffic_breakdowns`, at most 100 values of a dimension a day, the rest
 * as `other`) instead of every link's rows. Filled here from what the links counted so far.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('label_traffic_days')
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('views', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('clicks', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('presaves', 'integer', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('label_traffic_days_pk', ['label_id', 'day'])
    .execute();
  await db.schema
    .createTable('label_traffic_breakdowns')
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('dimension', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('label_traffic_breakdowns_pk', ['label_id', 'dimension', 'day', 'value'])
    .execute();

  await sql`
    insert into label_traffic_days (label_id, day, views, clicks, presaves)
    select label_id, day, sum(views), sum(clicks), 0 from smart_link_days group by label_id, day
  `.execute(db);
  await sql`
    insert into label_traffic_days (label_id, day, views, clicks, presaves)
    select label_id, substr(created_at, 1, 10), 0, 0, count(*) from smart_link_presaves
    group by label_id, substr(created_at, 1, 10)
    on conflict (label_id, day) do update set presaves = excluded.presaves
  `.execute(db);
  await sql`
    insert into label_traffic_breakdowns (label_id, day, dimension, value, count)
    select label_id, day, dimension, value, sum(count) from smart_link_breakdowns
    group by label_id, day, dimension, value
  `.execute(db);
}
