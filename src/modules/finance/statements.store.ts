import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { RoyaltyStatementsTable, RoyaltyUnmatchedLinesTable } from '../../db/schema.ts';
import { inBatches } from './finance.batches.ts';

/** Imported statements and the lines no label was paid for: the operator's side, across labels. */

export type StatementRow = Selectable<RoyaltyStatementsTable>;
export type UnmatchedLineRow = Selectable<RoyaltyUnmatchedLinesTable>;

export async function findStatementByHash(db: Db, contentHash: string): Promise<StatementRow | undefined> {
  return db
    .selectFrom('royalty_statements')
    .selectAll()
    .where('content_hash', '=', contentHash)
    .executeTakeFirst();
}

export async function findStatement(db: Db, id: number): Promise<StatementRow | undefined> {
  return db.selectFrom('royalty_statements').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertStatement(
  db: Db,
  row: Insertable<RoyaltyStatementsTable>,
): Promise<StatementRow> {
  return db.insertInto('royalty_statements').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertUnmatchedLines(
  db: Db,
  rows: readonly Insertable<RoyaltyUnmatchedLinesTable>[],
): Promise<void> {
  await inBatches(rows, (batch) => db.insertInto('royalty_unmatched_lines').values(batch).execute());
}

export async function unmatchedLinesOf(db: Db, statementId: number): Promise<UnmatchedLineRow[]> {
  return db
    .selectFrom('royalty_unmatched_lines')
    .selectAll()
    .where('statement_id', '=', statementId)
    .orderBy('line_number')
    .execute();
}

/** Unmatched lines of every statement, the newest statement first. */
export async function listUnmatchedLines(db: Db, limit: number): Promise<UnmatchedLineRow[]> {
  return db
    .selectFrom('royalty_unmatched_lines')
    .selectAll()
    .orderBy('statement_id', 'desc')
    .orderBy('line_number')
    .limit(limit)
    .execute();
}
