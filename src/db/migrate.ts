import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import * as platform from './migrations/0001_platform.ts';
import * as catalog from './migrations/0002_catalog.ts';
import * as catalogSearch from './migrations/0003_catalog_search.ts';
import type { Dialect } from './portable.ts';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** In order; a migration's name never changes once it has shipped. */
const MIGRATIONS: ReadonlyArray<readonly [string, DialectMigration]> = [
  ['0001_platform', platform],
  ['0002_catalog', catalog],
  ['0003_catalog_search', catalogSearch],
];

class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const [name, migration] of MIGRATIONS) {
      migrations[name] = { up: (db) => migration.up(db, this.dialect) };
    }
    return migrations;
  }
}

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest<DB>(db: Kysely<DB>, dialect: Dialect): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticMigrationProvider(dialect),
    ...(dialect === 'postgres' && { migrationTableSchema: await currentSchema(db) }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

/**
 * Kysely looks for its migration tables in every schema when none is named, so a database whose
 * other schemas hold another installation's (or another test run's) tables would be taken as
 * migrated. The tables belong in the schema this connection works in.
 */
async function currentSchema<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check the search_path of DATABASE_URL');
  return schema;
}
