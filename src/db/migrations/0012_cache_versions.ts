import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../portable.ts';

/**
 * What each process caches about a caller (its key, its label's terms and usage) has a version per
 * key (`key:<id>`) and per label (`label:<id>`), bumped by triggers in the transaction of every write
 * that changes it, whichever code or process makes it: a revoked or changed key; a label's plan,
 * limits, commission or contract, or its sandbox made or copied; the rows its usage counts (releases,
 * artists, members, enabled smart links, live keys, webhooks). Writes that change none of these (a
 * smart-link view, a release's status) bump nothing. `db/invalidation.ts` tells the processes.
 *
 * On PostgreSQL the bump also sends a notification (delivered on commit) and notes the subject in a
 * transaction-local setting, where the committing process reads it before it commits.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('cache_versions')
    .addColumn('subject', 'text', (col) => col.primaryKey().notNull())
    .addColumn('version', dialect === 'postgres' ? 'bigint' : 'integer', (col) => col.notNull())
    .execute();
  if (dialect === 'postgres') {
    await createPostgresTriggers(db);
  } else {
    // Other processes read the bumps after a version they have seen.
    await db.schema.createIndex('cache_versions_version').on('cache_versions').column('version').execute();
    await createSqliteTriggers(db);
  }
}

/** The tables whose inserted and deleted rows count toward a label's usage. */
const COUNTED = ['releases', 'artists', 'members', 'smart_links', 'webhooks'] as const;

/** SQL expressions of the subjects a row bumps, with `row` standing for `new` or `old`. */
type Subjects = (row: string) => string[];

const labelOf: Subjects = (row) => [`'label:' || ${row}.label_id`];
const keyAndLabel: Subjects = (row) => [`'key:' || ${row}.id`, `'label:' || ${row}.label_id`];
/** A label and, for a sandbox, the label it belongs to (its keys name the sandbox as their workspace). */
const labelAndParent: Subjects = (row) => [`'label:' || ${row}.id`, `'label:' || ${row}.parent_id`];

interface Watched {
  table: string;
  insert: Subjects;
  delete: Subjects;
}

const WATCHED: readonly Watched[] = [
  ...COUNTED.map((table) => ({ table, insert: labelOf, delete: labelOf })),
  // A new key changes the label's usage; its own version starts when it is first changed.
  { table: 'api_keys', insert: labelOf, delete: keyAndLabel },
  // A new label has nothing cached yet, but a new sandbox changes its parent's keys.
  { table: 'labels', insert: (row) => [`'label:' || ${row}.parent_id`], delete: labelAndParent },
];

/**
 * PostgreSQL: statement triggers on inserts and deletes, reading the changed rows from transition
 * tables, so that a sandbox copy of a whole catalog bumps its label once; row triggers on updates.
 */
async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence cache_version_seq`.execute(db);
  // One channel per database and schema: installations (and test runs) sharing a server stay apart.
  await sql`create function labeldesk_cache_channel() returns text language sql stable as $$
    select 'labeldesk_' || left(md5(current_database() || '.' || current_schema()), 16) $$`.execute(db);
  await sql`create function labeldesk_cache_bump(subjects text[]) returns void language plpgsql as $$
    declare
      one text;
      noted text := coalesce(current_setting('labeldesk.cache_bumps', true), '');
    begin
      foreach one in array subjects loop
        continue when one is null;
        insert into cache_versions (subject, version) values (one, nextval('cache_version_seq'))
          on conflict (subject) do update set version = excluded.version;
        perform pg_notify(labeldesk_cache_channel(), one);
        if position(' ' || one || ' ' in ' ' || noted) = 0 then
          noted := noted || one || ' ';
        end if;
      end loop;
      perform set_config('labeldesk.cache_bumps', noted, true);
    end $$`.execute(db);
  for (const watched of WATCHED) {
    for (const [op, rows, subjects] of [
      ['insert', 'new table as changed', watched.insert],
      ['delete', 'old table as changed', watched.delete],
    ] as const) {
      const fn = `${watched.table}_cache_bump_${op}`;
      const union = subjects('changed')
        .map((subject) => `select ${subject} from changed`)
        .join(' union ');
      await sql`${sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
        begin
          perform labeldesk_cache_bump(array(${union}));
          return null;
        end $$`)}`.execute(db);
      await sql`${sql.raw(`create trigger ${fn} after ${op} on ${watched.table}
        referencing ${rows} for each statement execute function ${fn}()`)}`.execute(db);
    }
  }
  await createPostgresUpdateTrigger(db, 'labels', labelAndParent('new'), '');
  await createPostgresUpdateTrigger(db, 'api_keys', keyAndLabel('new'), '');
  // A link's views update its row too often to bump on: only enabling or disabling counts.
  await createPostgresUpdateTrigger(
    db,
    'smart_links',
    labelOf('new'),
    'of enabled',
    'when (old.enabled is distinct from new.enabled)',
  );
}

async function createPostgresUpdateTrigger(
  db: Kysely<unknown>,
  table: string,
  subjects: string[],
  columns: string,
  condition = '',
): Promise<void> {
  const fn = `${table}_cache_bump_update`;
  await sql`${sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
    begin
      perform labeldesk_cache_bump(array[${subjects.join(', ')}]);
      return null;
    end $$`)}`.execute(db);
  await sql`${sql.raw(`create trigger ${fn} after update ${columns} on ${table}
    for each row ${condition} execute function ${fn}()`)}`.execute(db);
}

/** One statement per subject: a version above every one committed before (SQLite has one writer). */
function sqliteBumps(subjects: string[]): string {
  return subjects
    .map(
      (subject) => `insert into cache_versions (subject, version)
        select ${subject}, (select coalesce(max(version), 0) + 1 from cache_versions)
        where ${subject} is not null
        on conflict (subject) do update set version = excluded.version;`,
    )
    .join('\n');
}

async function createSqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const create = (name: string, event: string, body: string) =>
    sql`${sql.raw(`create trigger ${name} ${event} begin ${body} end`)}`.execute(db);
  for (const watched of WATCHED) {
    await create(
      `${watched.table}_cache_bump_insert`,
      `after insert on ${watched.table}`,
      sqliteBumps(watched.insert('new')),
    );
    await create(
      `${watched.table}_cache_bump_delete`,
      `after delete on ${watched.table}`,
      sqliteBumps(watched.delete('old')),
    );
  }
  await create('labels_cache_bump_update', 'after update on labels', sqliteBumps(labelAndParent('new')));
  await create('api_keys_cache_bump_update', 'after update on api_keys', sqliteBumps(keyAndLabel('new')));
  await create(
    'smart_links_cache_bump_update',
    'after update of enabled on smart_links when old.enabled is not new.enabled',
    sqliteBumps(labelOf('new')),
  );
}
