import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../portable.ts';

/** The `*_key` columns that title and name search reads, by table. */
const SEARCHED: ReadonlyArray<readonly [table: string, column: string]> = [
  ['artists', 'name_key'],
  ['releases', 'title_key'],
  ['tracks', 'title_key'],
];

/**
 * Text search that stays fast at a million tracks, and indexes for the walks search and lists make.
 *
 * `*_key` columns are already NFC and Unicode-lowercased (lib/text.ts), so both engines index
 * exactly the text a `LIKE '%q%'` on the key column compares, and match it case-sensitively.
 * - PostgreSQL: pg_trgm GIN indexes serve `title_key LIKE '%q%'` as it stands. The extension lives
 *   in `public` and is named with its schema, because a database may be reached through a
 *   search_path of a private schema (the tests do this) that does not include `public`.
 * - SQLite: FTS5 with the trigram tokenizer over the key column, as an external-content table (the
 *   text is not stored twice), kept in step by triggers; `search_text` in the search module
 *   queries it.
 *
 * B-tree indexes:
 * - `tracks_label_release_number` serves `/tracks?release_id=` and the CSV export's keyset walk
 *   (label, release, number, id) without touching another label's rows.
 * - `releases_label_id` and `artists_label_id` serve "these ids of this label" (search results,
 *   `?ids=`) and a scan of a label's rows newest first that stops early (short search queries).
 *   Without them SQLite, which assumes `label_id = ?` picks out a few rows, walks one of the
 *   label's other indexes to the end instead.
 */
const INDEXES: ReadonlyArray<readonly [name: string, table: string, columns: string[]]> = [
  ['tracks_label_release_number', 'tracks', ['label_id', 'release_id', 'number', 'id']],
  ['releases_label_id', 'releases', ['label_id', 'id']],
  ['artists_label_id', 'artists', ['label_id', 'id']],
];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const [name, table, columns] of INDEXES) {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  }
  if (dialect === 'postgres') await createTrigramIndexes(db);
  else await createFullTextTables(db);
}

async function createTrigramIndexes(db: Kysely<unknown>): Promise<void> {
  // Servers that migrate several schemas of one database at once (test runs) would race to create
  // the database-wide extension; the lock lasts until the migration's transaction ends.
  await sql`select pg_advisory_xact_lock(hashtext('labeldesk:create-extension:pg_trgm'))`.execute(db);
  await sql`create extension if not exists pg_trgm with schema public`.execute(db);
  // fastupdate off: with it on, new rows wait in a pending list (up to 4 MB) that every search
  // reads from end to end until vacuum merges it, several milliseconds per query. Catalog writes
  // are few, so each pays to update the index at once instead.
  for (const [table, column] of SEARCHED) {
    await sql`create index ${sql.id(`${table}_${column}_trgm`)} on ${sql.table(table)}
      using gin (${sql.ref(column)} public.gin_trgm_ops) with (fastupdate = off)`.execute(db);
  }
}

async function createFullTextTables(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of SEARCHED) {
    const fts = sql.table(`${table}_fts`);
    const col = sql.ref(column);
    await sql`create virtual table ${fts} using fts5(${col}, content=${sql.lit(table)},
      content_rowid='id', tokenize='trigram case_sensitive 1')`.execute(db);
    await sql`create trigger ${sql.id(`${table}_fts_insert`)} after insert on ${sql.table(table)} begin
      insert into ${fts} (rowid, ${col}) values (new.id, new.${col});
    end`.execute(db);
    await sql`create trigger ${sql.id(`${table}_fts_delete`)} after delete on ${sql.table(table)} begin
      insert into ${fts} (${fts}, rowid, ${col}) values ('delete', old.id, old.${col});
    end`.execute(db);
    await sql`create trigger ${sql.id(`${table}_fts_update`)} after update of ${col} on ${sql.table(table)} begin
      insert into ${fts} (${fts}, rowid, ${col}) values ('delete', old.id, old.${col});
      insert into ${fts} (rowid, ${col}) values (new.id, new.${col});
    end`.execute(db);
    // Rows written before this migration.
    await sql`insert into ${fts} (${fts}) values ('rebuild')`.execute(db);
  }
}
