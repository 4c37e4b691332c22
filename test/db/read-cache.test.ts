import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { attachCache, cacheLoads, readCache } from '../../src/db/read-cache.ts';
import type { Database } from '../../src/db/schema.ts';
import { createKey, revokeKey } from '../../src/modules/keys/keys.service.ts';
import { updateLabel } from '../../src/modules/labels/labels.service.ts';
import { addMember } from '../../src/modules/team/team.service.ts';
import {
  buildHarness,
  call,
  givenCaller,
  type Harness,
  json,
  openTestDatabase,
  TEST_DATABASE,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../helpers/harness.ts';
import { givenWebhook, HOOK_URL, harness as webhookHarness } from '../helpers/webhooks.ts';
import { givenLink, open } from '../modules/smart-links/link-pages.fixtures.ts';

interface Me {
  key: { prefix: string };
  plan: {
    key: string;
    limits: { releases: number | null };
    usage: Record<'releases' | 'artists' | 'members' | 'links' | 'api_keys' | 'webhooks', number>;
  };
}

async function me(h: Harness, key: string): Promise<Me> {
  const response = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(response.statusCode, 200, response.body);
  return json(response) as Me;
}

const prefixOf = (key: string) => key.slice(0, 'svc_'.length + 8);

/** Until `read` meets `expected` or `ms` have passed; the time it took. */
async function within<T>(ms: number, read: () => Promise<T>, expected: T): Promise<number> {
  const started = performance.now();
  for (;;) {
    const value = await read();
    const took = performance.now() - started;
    if (value === expected) return took;
    if (took > ms) assert.fail(`still ${String(value)} after ${Math.round(took)} ms`);
    await sleep(5);
  }
}

test('a caller is served from memory until something it shows changes, and at once after', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  await kept(h, key);
  for (let i = 0; i < 5; i++) assert.equal(await loadsBy(h, key), 0, 'GET /me again reads nothing');

  await updateLabel(h.ctx, label.id, { limits: [['releases', 7]] });
  assert.equal((await me(h, key)).plan.limits.releases, 7, 'a limit override is seen by the next request');

  const artist = await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 'Mira Vale' } });
  assert.equal(artist.statusCode, 201, artist.body);
  const created = await call(h, 'POST', '/api/v1/releases', {
    key,
    payload: {
      artist_id: (json(artist) as { artist: { id: number } }).artist.id,
      type: 'single',
      title: 'Night Drive',
      genre: 'Electronic',
      release_date: '2026-06-01',
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  assert.equal((await me(h, key)).plan.usage.releases, 1, 'usage counts the new release at once');
  const usage = json(await call(h, 'GET', '/api/v1/me/usage', { key })) as {
    usage: { releases: { used: number } };
  };
  assert.equal(usage.usage.releases.used, 1);

  await revokeKey(h.ctx, prefixOf(key));
  assert.equal(
    (await call(h, 'GET', '/api/v1/me', { key })).statusCode,
    401,
    'a revoked key is refused at once',
  );
});

test('every count /me shows moves with its rows at once: artists, members, keys, webhooks', async (t) => {
  const h = await webhookHarness(t);
  const { label, key } = await givenCaller(h);
  const usage = async () => (await me(h, key)).plan.usage;
  await kept(h, key);
  const before = await usage();
  assert.equal(
    (await call(h, 'POST', '/api/v1/artists', { key, payload: { name: 'Mira Vale' } })).statusCode,
    201,
  );
  await addMember(h.ctx, { labelId: label.id, login: 'mira', name: 'Mira Vale', role: 'manager' });
  await createKey(h.ctx, { labelId: label.id, scopes: ['all'] });
  const webhook = await givenWebhook(h, key, HOOK_URL);
  assert.deepEqual(await usage(), {
    ...before,
    artists: before.artists + 1,
    members: before.members + 1,
    api_keys: before.api_keys + 1,
    webhooks: before.webhooks + 1,
  });
  assert.equal((await call(h, 'DELETE', `/api/v1/webhooks/${webhook.id}`, { key })).statusCode, 200);
  assert.equal((await usage()).webhooks, before.webhooks);
});

test('a counted smart-link view keeps the callers', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key);
  assert.equal((await me(h, key)).plan.usage.links, 1);
  await kept(h, key);
  assert.equal((await open(h, `/l/${link.code}`)).statusCode, 200, 'the page is loaded once');
  const loaded = cacheLoads(h.ctx.db);
  for (let i = 0; i < 3; i++) assert.equal((await open(h, `/l/${link.code}`)).statusCode, 200);
  await me(h, key);
  assert.equal(cacheLoads(h.ctx.db), loaded, 'neither the key nor the usage was read again');

  const disabled = await call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, {
    key,
    payload: { enabled: false },
  });
  assert.equal(disabled.statusCode, 200, disabled.body);
  assert.equal((await me(h, key)).plan.usage.links, 0, 'a disabled link gives its place back at once');
});

for (const channel of ['notify', 'redis'] as const) {
  test(`a change committed by another process is honoured within 100 ms (PostgreSQL, ${channel})`, {
    skip: TEST_DATABASE !== 'postgres' || (channel === 'redis' && !TEST_REDIS_URL),
  }, async (t) => {
    const redisUrl = channel === 'redis' ? TEST_REDIS_URL : null;
    const base = await openTestDatabase(t);
    const h = await buildHarness(t, { database: redisUrl ? handleOn(t, base, redisUrl) : base });
    const other = handleOn(t, base, redisUrl);
    const { label, key } = await givenCaller(h);
    const status = async () => (await call(h, 'GET', '/api/v1/me', { key })).statusCode;
    await kept(h, key);

    await updateLabel({ ...h.ctx, db: other.db }, label.id, { plan: 'start' });
    await within(100, async () => (await me(h, key)).plan.key, 'start');
    await revokeKey({ ...h.ctx, db: other.db }, prefixOf(key));
    await within(100, status, 401);
  });
}

/** Another process's handle on the same PostgreSQL schema. */
function handleOn(t: TestContext, base: TestDatabase, redisUrl: string | null): TestDatabase {
  const handle = createDatabase({ dataDir: tmpdir(), databaseUrl: base.url, redisUrl });
  t.after(() => handle.destroy());
  return { ...handle, url: base.url };
}

/** Until GET /me is answered from memory: on PostgreSQL, values are kept once the channel listens. */
async function kept(h: Harness, key: string): Promise<void> {
  await within(5_000, async () => (await loadsBy(h, key)) === 0, true);
}

/** Database reads GET /me took. */
async function loadsBy(h: Harness, key: string): Promise<number> {
  const before = cacheLoads(h.ctx.db);
  await me(h, key);
  return cacheLoads(h.ctx.db) - before;
}

test('a write committed through another connection to the SQLite file is seen by the next request', {
  skip: TEST_DATABASE !== 'sqlite',
}, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'labeldesk-cache-'));
  const server = createDatabase({ dataDir, databaseUrl: null });
  const operator = createDatabase({ dataDir, databaseUrl: null });
  t.after(async () => {
    await server.destroy();
    await operator.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await migrateToLatest(server.db, server.dialect);
  const h = await buildHarness(t, { database: { ...server, url: null } });
  const { label, key } = await givenCaller(h);
  await kept(h, key);
  await updateLabel({ ...h.ctx, db: operator.db }, label.id, { limits: [['releases', 3]] });
  // The file is looked at once per event-loop turn; another process's request always arrives in a
  // later turn than its commit, as it does here.
  await setImmediate();
  assert.equal((await me(h, key)).plan.limits.releases, 3);
  await revokeKey({ ...h.ctx, db: operator.db }, prefixOf(key));
  await setImmediate();
  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 401);
});

test('while the channel is lost nothing is kept, and what was kept is dropped', {
  skip: TEST_DATABASE !== 'postgres',
}, async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  await kept(h, key);
  const { rows } = await sql<{ channel: string }>`select labeldesk_cache_channel() as channel`.execute(
    h.ctx.db,
  );
  const listen = `listen "${rows[0]?.channel}"`;
  await withClient(async (client) => {
    const { rowCount } = await client.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where query = $1',
      [listen],
    );
    assert.equal(rowCount, 1);
  });
  // Dropped at once, then kept again once the listener is back (it retries after 100 ms).
  await within(1_000, async () => (await loadsBy(h, key)) > 0, true);
  await within(5_000, async () => (await loadsBy(h, key)) === 0, true);
});

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

test('each cache keeps at most its own number of values: the least recently used goes, no other cache’s', async () => {
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new SqliteIntrospector(kysely),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  attachCache(db, () => ({ check: () => true }));
  const small = readCache<string>('small', 2);
  const other = readCache<string>('other', 2);
  const read = async (cache: typeof small, key: string) => {
    const before = cacheLoads(db);
    const value = await cache(
      db,
      key,
      async () => `${key}!`,
      () => [`subject:${key}`],
    );
    assert.equal(value, `${key}!`);
    return cacheLoads(db) - before;
  };
  for (const key of ['a', 'b']) assert.equal(await read(other, key), 1);
  for (const key of ['a', 'b', 'a', 'c']) await read(small, key);
  assert.equal(await read(small, 'a'), 0, 'used last but one: kept');
  assert.equal(await read(small, 'c'), 0, 'used last: kept');
  assert.equal(await read(small, 'b'), 1, 'the least recently used went');
  for (const key of ['a', 'b']) assert.equal(await read(other, key), 0, 'another cache keeps its values');
});
