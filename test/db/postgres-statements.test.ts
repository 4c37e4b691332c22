import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { createDatabase } from '../../src/db/database.ts';
import { buildHarness, call, givenCaller, TEST_DATABASE, TEST_POSTGRES_URL } from '../helpers/harness.ts';

const postgresOnly = { skip: TEST_DATABASE !== 'postgres' && 'PostgreSQL only' };

test('DATABASE_POOL_SIZE bounds the PostgreSQL connections of a process', postgresOnly, async (t) => {
  const config = loadConfig({
    LABELDESK_DATA_DIR: tmpdir(),
    DATABASE_URL: TEST_POSTGRES_URL,
    DATABASE_POOL_SIZE: '2',
  });
  const handle = createDatabase(config);
  t.after(() => handle.destroy());
  const backends = await Promise.all(
    Array.from({ length: 6 }, () =>
      sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(handle.db),
    ),
  );
  assert.equal(new Set(backends.map(({ rows }) => rows[0]?.pid)).size, 2);
});

test(
  'the key lookup and the release list run as statements prepared on the connection',
  postgresOnly,
  async (t) => {
    const h = await buildHarness(t);
    const { key } = await givenCaller(h);
    assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 200);
    assert.equal((await call(h, 'GET', '/api/v1/releases?per_page=20', { key })).statusCode, 200);
    // One request at a time takes and returns the same idle connection, so this query runs on it too.
    const { rows } = await sql<{ name: string; statement: string }>`
      select name, statement from pg_prepared_statements`.execute(h.ctx.db);
    const prepared = (part: string) =>
      rows.filter((row) => row.name.startsWith('labeldesk_') && row.statement.includes(part)).length;
    assert.equal(prepared('where "k"."key_hash" = $1'), 1, 'the key lookup');
    assert.equal(prepared('"releases"."id" in (select "releases"."id"'), 1, 'the release list');
  },
);

test(
  'a pooled connection that PostgreSQL ends while idle is replaced, not fatal',
  postgresOnly,
  async (t) => {
    const h = await buildHarness(t);
    const { key } = await givenCaller(h);
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(h.ctx.db);
    const pid = rows[0]?.pid;
    assert.ok(pid, 'the pooled connection has a backend');
    const other = createDatabase(
      loadConfig({ LABELDESK_DATA_DIR: tmpdir(), DATABASE_URL: TEST_POSTGRES_URL }),
    );
    t.after(() => other.destroy());
    await sql`select pg_terminate_backend(${pid})`.execute(other.db);
    // The pool hears of it as an 'error' event on the idle connection a moment later.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await call(h, 'GET', '/api/v1/releases?per_page=20', { key });
    assert.equal(response.statusCode, 200);
  },
);
