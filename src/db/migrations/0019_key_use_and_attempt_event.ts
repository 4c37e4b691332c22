import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../portable.ts';

/**
 * For the console: when each API key was last used, and which event each delivery attempt carried,
 * so that a log row can be sent again. Attempts logged before this have no event id; `event_id` is no
 * foreign key, as events are pruned after 90 days and the log keeps its rows.
 *
 * Recording a use is no change to the key: the update trigger of 0012 is narrowed so that it does not
 * bump the key's and its label's cache versions (which would empty their cached reads every minute).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
  await db.schema.alterTable('webhook_attempts').addColumn('event_id', 'integer').execute();
  if (dialect === 'postgres') await narrowPostgresKeyTrigger(db);
  else await narrowSqliteKeyTrigger(db);
}

async function narrowPostgresKeyTrigger(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger api_keys_cache_bump_update on api_keys`.execute(db);
  await sql`create trigger api_keys_cache_bump_update after update on api_keys
    for each row when (old.last_used_at is not distinct from new.last_used_at)
    execute function api_keys_cache_bump_update()`.execute(db);
}

async function narrowSqliteKeyTrigger(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger api_keys_cache_bump_update`.execute(db);
  await sql`create trigger api_keys_cache_bump_update after update on api_keys
    when old.last_used_at is new.last_used_at
    begin
      insert into cache_versions (subject, version)
        select 'key:' || new.id, (select coalesce(max(version), 0) + 1 from cache_versions)
        on conflict (subject) do update set version = excluded.version;
      insert into cache_versions (subject, version)
        select 'label:' || new.label_id, (select coalesce(max(version), 0) + 1 from cache_versions)
        on conflict (subject) do update set version = excluded.version;
    end`.execute(db);
}
