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
