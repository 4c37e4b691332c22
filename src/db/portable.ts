import {
  type CreateTableBuilder,
  type Kysely,
  type OperationNodeSource,
  PostgresAdapter,
  type RawBuilder,
  sql,
} from 'kysely';
import { jsonArrayFrom as postgresJsonArray } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArray } from 'kysely/helpers/sqlite';
import type { Db } from './database.ts';
import type { JsonRows } from './json-column.ts';
import { executeNamed } from './prepared.ts';

/** The only place that knows SQLite from PostgreSQL. */
export type Dialect = 'sqlite' | 'postgres';

/** The engine behind a connection or transaction, for code that is handed only the transaction. */
export function dialectOf<DB>(db: Kysely<DB>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Takes the lock a foreign key to these rows takes, up front (PostgreSQL's FOR KEY SHARE), so that
 * locks are taken in one order everywhere. SQLite has one writer at a time and needs none: there is
 * no query to run (null).
 */
export function forKeyShare<Q extends { forKeyShare(): Q }>(query: Q, dialect: Dialect): Q | null {
  return dialect === 'postgres' ? query.forKeyShare() : null;
}

/** An auto-incrementing integer primary key named `id`. */
export function withIdColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (col) => col.primaryKey())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
}

/** Floating-point column type (commission rates and other fractions, never money). */
export function fractionType(dialect: Dialect): 'double precision' | 'real' {
  return dialect === 'postgres' ? 'double precision' : 'real';
}

/** A unique index refused the write (SQLite and PostgreSQL report it differently). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  return error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === '23505';
}

/**
 * Locks the selected rows until the transaction ends, where the engine needs it: PostgreSQL
 * transactions run side by side, while SQLite's (one connection, one writer) already run one at a time.
 */
export function forUpdate<Q extends { forUpdate(): Q }>(query: Q, dialect: Dialect): Q {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/**
 * Locks the selected rows and skips rows another transaction holds, so that workers claiming work
 * from one table side by side on PostgreSQL take different rows instead of waiting on each other.
 * SQLite has one writer at a time and needs neither.
 */
export function forUpdateSkipLocked<Q extends { forUpdate(): Q; skipLocked(): Q }>(
  query: Q,
  dialect: Dialect,
): Q {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * A transaction whose reads all see one moment of the database: REPEATABLE READ on PostgreSQL
 * (its default, READ COMMITTED, lets each statement see later commits); SQLite's transactions
 * already read one snapshot.
 */
export function snapshotTransaction<DB>(db: Kysely<DB>, dialect: Dialect) {
  const transaction = db.transaction();
  return dialect === 'postgres' ? transaction.setIsolationLevel('repeatable read') : transaction;
}

/** PostgreSQL refused a snapshot transaction's write because a concurrent one changed the row first. */
export function isSerializationFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '40001';
}

/** The PostgreSQL schema this connection creates tables in (the first of its search_path). */
export async function currentSchema<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check the search_path of DATABASE_URL');
  return schema;
}

/**
 * A subquery's rows as one JSON array column, so that a row and its children are read in one
 * statement. SQLite's JSON objects are built field by field, so the subquery names its columns (no
 * selectAll). The column is read with `readJsonRows`.
 */
export function jsonRows<DB, O>(
  db: Kysely<DB>,
  rows: Parameters<typeof sqliteJsonArray<O>>[0],
): RawBuilder<JsonRows<O>> {
  const array = dialectOf(db) === 'postgres' ? postgresJsonArray(rows) : sqliteJsonArray(rows);
  return array as RawBuilder<unknown> as RawBuilder<JsonRows<O>>;
}

/** An insert, update or delete, not yet run. */
export interface Write extends OperationNodeSource {
  execute(): Promise<unknown>;
}

/**
 * Writes that happen together or not at all, none of which reads another's effect. On PostgreSQL
 * they are one statement, each write a WITH clause: one round trip, and row locks held only while
 * it runs rather than across a transaction's round trips. On SQLite, where a statement costs no
 * round trip, they run in turn in a transaction (the caller's, when `db` is one).
 */
export async function writeTogether(db: Db, build: (db: Db) => readonly Write[]): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    const clauses = build(db).map((write, i) => sql`${sql.id(`write_${i}`)} as (${write})`);
    const statement = sql`with ${sql.join(clauses)} select 1`;
    await executeNamed(db, { compile: () => statement.compile(db) });
    return;
  }
  const runInTurn = async (trx: Db) => {
    for (const write of build(trx)) await write.execute();
  };
  if (db.isTransaction) await runInTurn(db);
  else await db.transaction().execute(runInTurn);
}
