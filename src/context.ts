import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { Dialect } from './db/portable.ts';
import type { HostResolver } from './modules/webhooks/index.ts';

/** What services need from the outside world, passed explicitly (never hung on the Fastify instance). */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly dialect: Dialect;
  readonly clock: Clock;
  /** DNS, for webhook addresses (tests stand in for it to make a name resolve where they need). */
  readonly resolveHost: HostResolver;
}
