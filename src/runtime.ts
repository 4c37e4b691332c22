import { systemClock } from './clock.ts';
import { type Config, loadConfig } from './config.ts';
import type { AppContext } from './context.ts';
import { createDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { systemResolver } from './modules/webhooks/index.ts';

/** Opens the configured database, brings its schema up to date and returns the context services take. */
export async function openContext(config: Config = loadConfig(process.env)): Promise<{
  ctx: AppContext;
  close: () => Promise<void>;
}> {
  const handle = createDatabase(config);
  try {
    await migrateToLatest(handle.db, handle.dialect);
  } catch (error) {
    await handle.destroy();
    throw error;
  }
  return {
    ctx: { config, db: handle.db, dialect: handle.dialect, clock: systemClock, resolveHost: systemResolver },
    close: () => handle.destroy(),
  };
}
