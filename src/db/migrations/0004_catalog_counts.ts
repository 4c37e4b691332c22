import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../portable.ts';

/**
 * Counts of a workspace's releases by status and of its tracks, kept by triggers in the same
 * transaction as every insert, delete and status change. Counting 100k index entries takes 10 to
 * 30 ms on PostgreSQL; the lists' totals, the plan usage and the health report read these instead.
 * Triggers are written per engine (PL/pgSQL functions on PostgreSQL, trigger bodies on SQLite);
 * both upsert the counter row and subtract from the old one.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('release_counts')
    .addColumn('label_id', 'integer', (col) => col.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('n', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('release_counts_pk', ['label_id', 'status'])
    .execute();
  await db.schema
    .createTable('track_counts')
    .addColumn('label_id', 'integer', (col) => col.primaryKey().references('labels.id').onDelete('cascade'))
    .addColumn('n', 'integer', (col) => col.notNull())
    .execute();
  if (dialect === 'postgres') await createPostgresTriggers(db);
  else await createSqliteTriggers(db);
  // Rows written before this migration.
  await sql`insert into release_counts (label_id, status, n)
    select label_id, status, count(*) from releases group by label_id, status`.execute(db);
  await sql`insert into track_counts (label_id, n)
    select label_id, count(*) from tracks group by label_id`.execute(db);
}

const ADD_RELEASE = sql`insert into release_counts (label_id, status, n) values (new.label_id, new.status, 1)
  on conflict (label_id, status) do update set n = release_counts.n + 1`;
const REMOVE_RELEASE = sql`update release_counts set n = n - 1 where label_id = old.label_id and status = old.status`;
const ADD_TRACK = sql`insert into track_counts (label_id, n) values (new.label_id, 1)
  on conflict (label_id) do update set n = track_counts.n + 1`;
const REMOVE_TRACK = sql`update track_counts set n = n - 1 where label_id = old.label_id`;

async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create function release_counts_keep() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then ${REMOVE_RELEASE}; end if;
      if tg_op in ('INSERT', 'UPDATE') then ${ADD_RELEASE}; end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger releases_counted_insert_delete after insert or delete on releases
    for each row execute function release_counts_keep()`.execute(db);
  await sql`create trigger releases_counted_update after update of status, label_id on releases
    for each row when (old.status is distinct from new.status or old.label_id <> new.label_id)
    execute function release_counts_keep()`.execute(db);
  await sql`create function track_counts_keep() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then ${REMOVE_TRACK}; end if;
      if tg_op in ('INSERT', 'UPDATE') then ${ADD_TRACK}; end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger tracks_counted_insert_delete after insert or delete on tracks
    for each row execute function track_counts_keep()`.execute(db);
  await sql`create trigger tracks_counted_update after update of label_id on tracks
    for each row when (old.label_id <> new.label_id) execute function track_counts_keep()`.execute(db);
}

async function createSqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger releases_counted_insert after insert on releases begin ${ADD_RELEASE}; end`.execute(
    db,
  );
  await sql`create trigger releases_counted_delete after delete on releases begin ${REMOVE_RELEASE}; end`.execute(
    db,
  );
  await sql`create trigger releases_counted_update after update of status, label_id on releases
    when old.status is not new.status or old.label_id <> new.label_id
    begin ${REMOVE_RELEASE}; ${ADD_RELEASE}; end`.execute(db);
  await sql`create trigger tracks_counted_insert after insert on tracks begin ${ADD_TRACK}; end`.execute(db);
  await sql`create trigger tracks_counted_delete after delete on tracks begin ${REMOVE_TRACK}; end`.execute(
    db,
  );
  await sql`create trigger tracks_counted_update after update of label_id on tracks
    when old.label_id <> new.label_id
    begin ${REMOVE_TRACK}; ${ADD_TRACK}; end`.execute(db);
}
