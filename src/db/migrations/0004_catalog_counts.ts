import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../portable.ts';

/**
 * Counts of a workspace's releases by status and of its tracks, kept by triggers in the same
 * transaction as every insert, delete and status change. Counting 100k index entries takes 10 to
 * 30 ms on PostgreSQL; the lists' totals, the plan usage and the health report read these instead.
 * Triggers are written per engine: statement triggers on PostgreSQL, row triggers on SQLite.
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
  if (dialect === 'postgres') {
    await createPostgresTriggers(db, RELEASES);
    await createPostgresTriggers(db, TRACKS);
  } else {
    await createSqliteTriggers(db);
  }
  // Rows written before this migration.
  await sql`insert into release_counts (label_id, status, n)
    select label_id, status, count(*) from releases group by label_id, status`.execute(db);
  await sql`insert into track_counts (label_id, n)
    select label_id, count(*) from tracks group by label_id`.execute(db);
}

interface Counted {
  table: 'releases' | 'tracks';
  counts: 'release_counts' | 'track_counts';
  /** The counter's key besides the workspace. */
  keys: readonly string[];
}

const RELEASES: Counted = { table: 'releases', counts: 'release_counts', keys: ['label_id', 'status'] };
const TRACKS: Counted = { table: 'tracks', counts: 'track_counts', keys: ['label_id'] };

/**
 * PostgreSQL: one statement-level trigger per operation, reading the rows the statement changed
 * from its transition tables, so a statement of a million rows (a sandbox copy) updates each
 * counter once instead of a million times. Inserted rows count +1, removed rows -1, and an update
 * counts as both, so the sum per key is the change.
 */
async function createPostgresTriggers(db: Kysely<unknown>, counted: Counted): Promise<void> {
  const keys = counted.keys.join(', ');
  const sources = {
    insert: `select ${keys}, 1 as d from inserted`,
    delete: `select ${keys}, -1 as d from removed`,
    update: `select ${keys}, 1 as d from inserted union all select ${keys}, -1 as d from removed`,
  };
  const transitions = {
    insert: 'referencing new table as inserted',
    delete: 'referencing old table as removed',
    update: 'referencing old table as removed new table as inserted',
  };
  for (const op of ['insert', 'delete', 'update'] as const) {
    const fn = `${counted.counts}_on_${op}`;
    await sql`${sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin
        insert into ${counted.counts} (${keys}, n)
          select ${keys}, sum(d) from (${sources[op]}) as changed group by ${keys} having sum(d) <> 0
          on conflict (${keys}) do update set n = ${counted.counts}.n + excluded.n;
        return null;
      end $$`)}`.execute(db);
    await sql`${sql.raw(`create trigger ${counted.table}_counted_${op} after ${op} on ${counted.table}
      ${transitions[op]} for each statement execute function ${fn}()`)}`.execute(db);
  }
}

const ADD_RELEASE = sql`insert into release_counts (label_id, status, n) values (new.label_id, new.status, 1)
  on conflict (label_id, status) do update set n = release_counts.n + 1`;
const REMOVE_RELEASE = sql`update release_counts set n = n - 1 where label_id = old.label_id and status = old.status`;
const ADD_TRACK = sql`insert into track_counts (label_id, n) values (new.label_id, 1)
  on conflict (label_id) do update set n = track_counts.n + 1`;
const REMOVE_TRACK = sql`update track_counts set n = n - 1 where label_id = old.label_id`;

/** SQLite has row triggers only; they run in its own code, and updating one row repeatedly is cheap there. */
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
