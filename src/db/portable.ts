import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

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
