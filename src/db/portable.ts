import type { CreateTableBuilder } from 'kysely';

/** The only place that knows SQLite from PostgreSQL. */
export type Dialect = 'sqlite' | 'postgres';

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
