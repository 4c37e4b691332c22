import { type AliasedRawBuilder, sql } from 'kysely';
import type { Dialect } from '../../db/portable.ts';
import { ownedBy } from '../../db/scope.ts';
import { keyContains } from '../../db/text-search.ts';
import { searchKey } from '../../lib/text.ts';

/** Tables with a text-search index (migration 0003) over their `*_key` column. */
const KEY_COLUMNS = { artists: 'name_key', releases: 'title_key', tracks: 'title_key' } as const;
export type SearchedTable = keyof typeof KEY_COLUMNS;

/** The trigram index finds substrings of three characters or more; shorter ones are scanned for. */
const TRIGRAM_LENGTH = 3;

/** An FTS5 phrase: the text taken literally, its own double quotes doubled. */
function ftsPhrase(key: string): string {
  return `"${key.replaceAll('"', '""')}"`;
}

/**
 * The ids of the rows of `table` whose key column contains `query` (case-insensitively for every
 * script), as a derived table `m(id)` to join the table on. Order the result by `m.id`: on SQLite
 * the full-text index yields ids in that order, so a query that wants the newest ten stops after
 * ten instead of sorting every match.
 *
 * This is the one place that knows how each engine searches text:
 * - SQLite, three characters or more: the FTS5 trigram table `<table>_fts`. It holds every
 *   workspace's rows, so the caller still scopes the joined table with `ownedBy`.
 * - PostgreSQL: `LIKE` on the key column, which its pg_trgm GIN index serves; the planner weighs it
 *   against the workspace's own indexes.
 * - SQLite, shorter queries: `LIKE` over the workspace's rows (a scan; callers ask for few rows).
 */
export function keyMatches(
  dialect: Dialect,
  table: SearchedTable,
  workspaceId: number,
  query: string,
): AliasedRawBuilder<{ id: number }, 'm'> {
  const key = searchKey(query);
  if (dialect === 'sqlite' && [...key].length >= TRIGRAM_LENGTH) {
    const fts = sql.table(`${table}_fts`);
    return sql<{ id: number }>`(select rowid as id from ${fts} where ${fts} match ${ftsPhrase(key)})`.as('m');
  }
  return sql<{ id: number }>`(select id from ${sql.table(table)}
    where ${ownedBy(table, workspaceId)} and ${keyContains(`${table}.${KEY_COLUMNS[table]}`, query)})`.as(
    'm',
  );
}
