import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { containsPattern } from '../lib/text.ts';

/**
 * `column` (a lowercased `*_key` column) contains `query`, case-insensitively for every script.
 * Both engines accept `ESCAPE '\'`, which containsPattern relies on.
 */
export function keyContains(column: string, query: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} like ${containsPattern(query)} escape '\\'`;
}
