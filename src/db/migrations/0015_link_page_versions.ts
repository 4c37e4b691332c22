import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../portable.ts';

/**
 * Each process keeps the smart-link pages it served (issue 19); what a page shows gets versions of
 * its own, bumped by the same machinery as migration 0012's (`cache_versions`, and on PostgreSQL
 * `labeldesk_cache_bump`, its notification and its note for the committing process):
 *
 * - `link:<id>`: the link's shown fields (its addresses, `enabled`, title, dates, appearance, its
 *   release) and its targets' platforms, addresses and order; the link removed.
 * - `release:<id>`: the cover the page shows (the release's cover columns); the release removed.
 * - `address:<code or slug>`: an address that starts to lead to a link (a link created, a slug
 *   set, a link enabled), which ends what was kept as "no link here".
 *
 * Counters (a link's views, clicks and pre-saves, a target's clicks) and the search key bump
 * nothing: they change on every visit, and the page does not show them.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await createPostgresTriggers(db);
  else await createSqliteTriggers(db);
}

/** The columns of `smart_links` that the page, the redirect and the pre-save form use. */
const SHOWN_LINK_COLUMNS = [
  'label_id',
  'code',
  'slug',
  'enabled',
  'title',
  'artist_name',
  'release_date',
  'release_id',
  'theme',
  'accent',
  'cta_text',
  'hide_branding',
];
const SHOWN_TARGET_COLUMNS = ['link_id', 'platform', 'url', 'position'];
const COVER_COLUMNS = ['cover_hash', 'cover_format', 'cover_width', 'cover_height'];

/** SQL expressions of the subjects a row bumps, with `row` standing for `new`, `old` or `changed`. */
type Subjects = (row: string) => string[];

const addressesOf: Subjects = (row) => [`'address:' || ${row}.code`, `'address:' || ${row}.slug`];
const linkOf: Subjects = (row) => [`'link:' || ${row}.id`];
const linkOfTarget: Subjects = (row) => [`'link:' || ${row}.link_id`];
const releaseOf: Subjects = (row) => [`'release:' || ${row}.id`];

interface Watched {
  table: string;
  insert: Subjects | null;
  delete: Subjects;
  update: { columns: string[]; subjects: Subjects };
}

const WATCHED: readonly Watched[] = [
  {
    table: 'smart_links',
    insert: addressesOf,
    delete: linkOf,
    update: { columns: SHOWN_LINK_COLUMNS, subjects: (row) => [...linkOf(row), ...addressesOf(row)] },
  },
  {
    table: 'smart_link_targets',
    insert: linkOfTarget,
    delete: linkOfTarget,
    // A target moved to another link (never done today) changes both pages.
    update: {
      columns: SHOWN_TARGET_COLUMNS,
      subjects: (row) => [...linkOfTarget(row), "'link:' || old.link_id"],
    },
  },
  // A new release shows on no page yet: a link names it by a change of its own `release_id`.
  {
    table: 'releases',
    insert: null,
    delete: releaseOf,
    update: { columns: COVER_COLUMNS, subjects: releaseOf },
  },
];

/** `old.a is distinct from new.a or …` for PostgreSQL, `old.a is not new.a or …` for SQLite. */
function anyChanged(columns: readonly string[], differs: string): string {
  return columns.map((column) => `old.${column} ${differs} new.${column}`).join(' or ');
}

/**
 * PostgreSQL: statement triggers on inserts and deletes (a sandbox copy or reset bumps each subject
 * once), row triggers on updates of the shown columns, only when one of them changed.
 */
async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  for (const watched of WATCHED) {
    const statements = [
      ['insert', 'new table as changed', watched.insert],
      ['delete', 'old table as changed', watched.delete],
    ] as const;
    for (const [op, rows, subjects] of statements) {
      if (subjects === null) continue;
      const fn = `${watched.table}_page_bump_${op}`;
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
    const { columns, subjects } = watched.update;
    const fn = `${watched.table}_page_bump_update`;
    await sql`${sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin
        perform labeldesk_cache_bump(array[${subjects('new').join(', ')}]);
        return null;
      end $$`)}`.execute(db);
    await sql`${sql.raw(`create trigger ${fn} after update of ${columns.join(', ')} on ${watched.table}
      for each row when (${anyChanged(columns, 'is distinct from')}) execute function ${fn}()`)}`.execute(db);
  }
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
    const { table } = watched;
    if (watched.insert !== null) {
      await create(
        `${table}_page_bump_insert`,
        `after insert on ${table}`,
        sqliteBumps(watched.insert('new')),
      );
    }
    await create(`${table}_page_bump_delete`, `after delete on ${table}`, sqliteBumps(watched.delete('old')));
    const { columns, subjects } = watched.update;
    await create(
      `${table}_page_bump_update`,
      `after update of ${columns.join(', ')} on ${table} when ${anyChanged(columns, 'is not')}`,
      sqliteBumps(subjects('new')),
    );
  }
}
