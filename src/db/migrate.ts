import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
} from 'kysely';
import * as platform from './migrations/0001_platform.ts';
import * as catalog from './migrations/0002_catalog.ts';
import * as catalogSearch from './migrations/0003_catalog_search.ts';
import * as catalogCounts from './migrations/0004_catalog_counts.ts';
import * as events from './migrations/0005_events.ts';
import * as webhooks from './migrations/0006_webhooks.ts';
import * as pipeline from './migrations/0007_pipeline.ts';
import * as smartLinks from './migrations/0008_smart_links.ts';
import * as finance from './migrations/0009_finance.ts';
import * as jobFairness from './migrations/0010_job_fairness.ts';
import * as webhookAttemptWorkspace from './migrations/0011_webhook_attempt_workspace.ts';
import * as cacheVersions from './migrations/0012_cache_versions.ts';
import * as mediaLocks from './migrations/0013_media_locks.ts';
import * as labelTraffic from './migrations/0014_label_traffic.ts';
import * as linkPageVersions from './migrations/0015_link_page_versions.ts';
import * as labelTrafficCounts from './migrations/0016_label_traffic_counts.ts';
import * as linkCountBatches from './migrations/0017_link_count_batches.ts';
import * as consoleSignIn from './migrations/0018_console_sign_in.ts';
import * as keyUseAndAttemptEvent from './migrations/0019_key_use_and_attempt_event.ts';
import * as takedownPlatforms from './migrations/0020_takedown_platforms.ts';
import * as trackAudioAnalysis from './migrations/0021_track_audio_analysis.ts';
import * as webhookRecovery from './migrations/0022_webhook_recovery.ts';
import { currentSchema, type Dialect } from './portable.ts';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** In order; a migration's name never changes once it has shipped. */
const MIGRATIONS: ReadonlyArray<readonly [string, DialectMigration]> = [
  ['0001_platform', platform],
  ['0002_catalog', catalog],
  ['0003_catalog_search', catalogSearch],
  ['0004_catalog_counts', catalogCounts],
  ['0005_events', events],
  ['0006_webhooks', webhooks],
  ['0007_pipeline', pipeline],
  ['0008_smart_links', smartLinks],
  ['0009_finance', finance],
  ['0010_job_fairness', jobFairness],
  ['0011_webhook_attempt_workspace', webhookAttemptWorkspace],
  ['0012_cache_versions', cacheVersions],
  ['0013_media_locks', mediaLocks],
  ['0014_label_traffic', labelTraffic],
  ['0015_link_page_versions', linkPageVersions],
  ['0016_label_traffic_counts', labelTrafficCounts],
  ['0017_link_count_batches', linkCountBatches],
  ['0018_console_sign_in', consoleSignIn],
  ['0019_key_use_and_attempt_event', keyUseAndAttemptEvent],
  ['0020_takedown_platforms', takedownPlatforms],
  ['0021_track_audio_analysis', trackAudioAnalysis],
  ['0022_webhook_recovery', webhookRecovery],
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

async function migratorFor<DB>(db: Kysely<DB>, dialect: Dialect): Promise<Migrator> {
  return new Migrator({
    db,
    provider: new StaticMigrationProvider(dialect),
    // Kysely looks for its tables in every schema when none is named, so tables of another
    // installation (or test run) in another schema of the database would be taken for ours.
    ...(dialect === 'postgres' && { migrationTableSchema: await currentSchema(db) }),
  });
}

function applied(outcome: MigrationResultSet): string[] {
  const { error, results } = outcome;
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

/** Brings the schema up to date; returns the names of the migrations it applied. */
export async function migrateToLatest<DB>(db: Kysely<DB>, dialect: Dialect): Promise<string[]> {
  const migrator = await migratorFor(db, dialect);
  return applied(await migrator.migrateToLatest());
}

/** Brings the schema up to the migration `name`, no further: how a test sees a migration fill old data. */
export async function migrateUpTo<DB>(db: Kysely<DB>, dialect: Dialect, name: string): Promise<string[]> {
  if (!MIGRATIONS.some(([known]) => known === name)) throw new Error(`no migration is named ${name}`);
  const migrator = await migratorFor(db, dialect);
  return applied(await migrator.migrateTo(name));
}
