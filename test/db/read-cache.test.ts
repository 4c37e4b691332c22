import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { createDatabase, type Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { readCache } from '../../src/db/read-cache.ts';
import { openTestDatabase, TEST_DATABASE } from '../helpers/harness.ts';

const labelName = async (db: Db, id: number) =>
  (await db.selectFrom('labels').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name;

async function insertLabel(db: Db, name: string): Promise<number> {
  const row = await db
    .insertInto('labels')
    .values({
      name,
      slug: name.toLowerCase(),
      plan: 'label',
      contract_signed: 1,
      limit_overrides: '{}',
      created_at: '2026-01-01T00:00:00.000Z',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

test('a cached read is served again until this connection writes', {
  skip: TEST_DATABASE !== 'sqlite',
}, async (t) => {
  const { db } = await openTestDatabase(t);
  const id = await insertLabel(db, 'Before');
  const cached = readCache<string>();
  let loads = 0;
  const read = () =>
    cached(db, `label:${id}`, () => {
      loads++;
      return labelName(db, id);
    });
  assert.equal(await read(), 'Before');
  assert.equal(await read(), 'Before');
  assert.equal(loads, 1);
  await db.updateTable('labels').set({ name: 'After' }).where('id', '=', id).execute();
  assert.equal(await read(), 'After');
  assert.equal(loads, 2);
});

test('a write committed by another connection (another process) empties the cache', {
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
  await migrateToLatest(server.db, 'sqlite');
  const id = await insertLabel(server.db, 'Before');
  const cached = readCache<string>();
  const read = () => cached(server.db, `label:${id}`, () => labelName(server.db, id));
  assert.equal(await read(), 'Before');
  await operator.db.updateTable('labels').set({ name: 'After' }).where('id', '=', id).execute();
  // Another connection's commits are looked for once per event-loop turn; a request sent after the
  // commit, by another process, always arrives in a later turn.
  await setImmediate();
  assert.equal(await read(), 'After');
});

test('on PostgreSQL nothing is cached: every read goes to the database', {
  skip: TEST_DATABASE !== 'postgres',
}, async (t) => {
  const { db } = await openTestDatabase(t);
  const id = await insertLabel(db, 'Label');
  const cached = readCache<string>();
  let loads = 0;
  for (let i = 0; i < 3; i++) {
    await cached(db, 'x', () => {
      loads++;
      return labelName(db, id);
    });
  }
  assert.equal(loads, 3);
});
