import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { loadConfig } from './config.ts';
import { createMemoryDatabase } from './db/database.ts';
import { MemoryRateLimiter } from './http/rate-limiter.ts';
import { systemResolver } from './modules/webhooks/index.ts';

/** The OpenAPI document the server serves, built without opening the configured database. */
export async function buildOpenApiDocument(): Promise<unknown> {
  const config = loadConfig(process.env);
  const handle = createMemoryDatabase();
  const app = await buildApp(
    { config, db: handle.db, dialect: handle.dialect, clock: systemClock, resolveHost: systemResolver },
    { limiter: new MemoryRateLimiter() },
  );
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await handle.destroy();
  }
}
