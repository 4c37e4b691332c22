import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';
import { type Env, loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createDatabase, createMemoryDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest, migrateUpTo } from '../../src/db/migrate.ts';
import { MemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter.ts';
import { createKey } from '../../src/modules/keys/keys.service.ts';
import { createLabel, type LabelView } from '../../src/modules/labels/labels.service.ts';
import { type HostResolver, systemResolver } from '../../src/modules/webhooks/webhooks.address.ts';

export const TEST_DATABASE = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Set by CI (and by developers who have Redis) to run the shared-store tests too. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? null;
export const BASE_URL = 'https://api.labeldesk.test';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start = '2026-03-02T10:00:00.000Z') {
    this.current = Date.parse(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

export interface TestDatabase extends DatabaseHandle {
  /** The PostgreSQL URL that reaches this database's private schema; null on SQLite. */
  url: string | null;
}

/**
 * A fresh, migrated database: in-memory SQLite, or a private schema in the local PostgreSQL server
 * that is dropped when the test ends. `upTo` names the last migration to apply (default: all).
 */
export async function openTestDatabase(t: TestContext, upTo?: string): Promise<TestDatabase> {
  const { database, dispose } = await createTestDatabase(upTo);
  t.after(dispose);
  return database;
}

/** A fresh, migrated database and what removes it, for a caller that must close things before. */
async function createTestDatabase(
  upTo?: string,
): Promise<{ database: TestDatabase; dispose: () => Promise<void> }> {
  const migrate = (handle: DatabaseHandle) =>
    upTo === undefined
      ? migrateToLatest(handle.db, handle.dialect)
      : migrateUpTo(handle.db, handle.dialect, upTo);
  if (TEST_DATABASE === 'sqlite') {
    const handle = createMemoryDatabase();
    await migrate(handle);
    return { database: { ...handle, url: null }, dispose: () => handle.destroy() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const handle = createDatabase({ dataDir: tmpdir(), databaseUrl: url.toString() });
  await migrate(handle);
  const dispose = async () => {
    await handle.destroy();
    const dropper = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await dropper.connect();
    await dropper.query(`drop schema ${schema} cascade`);
    await dropper.end();
  };
  return { database: { ...handle, url: url.toString() }, dispose };
}

export interface Harness {
  app: FastifyInstance;
  ctx: AppContext;
  clock: ManualClock;
  limiter: RateLimiter;
  database: TestDatabase;
  dataDir: string;
}

export interface HarnessOptions {
  env?: Env;
  limiter?: RateLimiter;
  clock?: ManualClock;
  /** Share a database with another harness (two servers, one database). */
  database?: TestDatabase;
  /** Stands in for DNS (webhook addresses). */
  resolveHost?: HostResolver;
  /** Called before the app is ready, to add routes that exercise cross-cutting behaviour. */
  extend?: (app: FastifyInstance, ctx: AppContext) => void;
}

export async function buildHarness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'labeldesk-test-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ LABELDESK_DATA_DIR: dataDir, BASE_URL, ...options.env });
  const created = options.database ? null : await createTestDatabase();
  const database = options.database ?? created?.database;
  if (!database) throw new Error('no test database');
  const clock = options.clock ?? new ManualClock();
  const limiter = options.limiter ?? new MemoryRateLimiter();
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    clock,
    resolveHost: options.resolveHost ?? systemResolver,
  };
  const app = await buildApp(ctx, { limiter });
  options.extend?.(app, ctx);
  await app.ready();
  // The app first: closing writes what its smart-link pages counted into the database.
  t.after(async () => {
    await app.close();
    await created?.dispose();
  });
  return { app, ctx, clock, limiter, database, dataDir };
}

export async function givenLabel(
  h: Pick<Harness, 'ctx'>,
  input: { name?: string; plan?: string; contractSigned?: boolean } = {},
): Promise<LabelView> {
  return createLabel(h.ctx, {
    name: input.name ?? 'Northern Lights Records',
    plan: input.plan ?? 'label',
    ...input,
  });
}

export async function givenKey(
  h: Pick<Harness, 'ctx'>,
  labelId: number,
  input: { scopes?: string[]; sandbox?: boolean; allowIps?: string[] } = {},
): Promise<string> {
  const issued = await createKey(h.ctx, {
    labelId,
    scopes: input.scopes ?? ['all'],
    ...(input.sandbox !== undefined && { sandbox: input.sandbox }),
    ...(input.allowIps && { allowIps: input.allowIps }),
  });
  return issued.key;
}

/** A label on `plan` with one key holding `scopes`: the usual start of a test. */
export async function givenCaller(
  h: Pick<Harness, 'ctx'>,
  input: { plan?: string; scopes?: string[]; sandbox?: boolean } = {},
): Promise<{ label: LabelView; key: string }> {
  const label = await givenLabel(h, { plan: input.plan ?? 'label', contractSigned: true });
  const key = await givenKey(h, label.id, {
    scopes: input.scopes ?? ['all'],
    ...(input.sandbox !== undefined && { sandbox: input.sandbox }),
  });
  return { label, key };
}

export function call(
  h: Pick<Harness, 'app'>,
  method: InjectOptions['method'],
  url: string,
  options: {
    key?: string;
    headers?: Record<string, string>;
    payload?: InjectOptions['payload'];
    remoteAddress?: string;
  } = {},
): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method,
    url,
    headers: { ...(options.key && { authorization: `Bearer ${options.key}` }), ...options.headers },
    ...(options.payload !== undefined && { payload: options.payload }),
    ...(options.remoteAddress && { remoteAddress: options.remoteAddress }),
  });
}

export function json(response: LightMyRequestResponse): unknown {
  return JSON.parse(response.body);
}
