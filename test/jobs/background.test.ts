import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBackground } from '../../src/background.ts';
import { buildHarness, call, givenCaller } from '../helpers/harness.ts';
import { givenWebhook, liveWorkspace, publishEvent } from '../helpers/webhooks.ts';

const DAY_MS = 24 * 3_600_000;

test('the background worker prunes idempotency records after 24 hours, events and delivery logs after 90 days', async (t) => {
  const h = await buildHarness(t, {
    resolveHost: async () => [{ address: '93.184.215.14', family: 4 }],
  });
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, 'https://hooks.example.com/x');
  const idempotent = await call(h, 'POST', '/api/v1/artists', {
    key,
    headers: { 'idempotency-key': 'artist-1' },
    payload: { name: 'Mira Vale' },
  });
  assert.equal(idempotent.statusCode, 201);
  const oldEvent = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: 'old' });
  await h.ctx.db
    .insertInto('webhook_attempts')
    .values({
      webhook_id: webhook.id,
      delivery_id: 'old',
      event: 'release.live',
      attempt: 1,
      status: 200,
      ok: 1,
      duration_ms: 5,
      error: null,
      created_at: h.clock.now().toISOString(),
    })
    .execute();
  await h.ctx.db.deleteFrom('jobs').where('kind', '=', 'webhook.delivery').execute();
  const background = createBackground(h.ctx);
  t.after(() => background.close());
  const count = async (table: 'idempotency_keys' | 'events' | 'webhook_attempts') =>
    Number(
      (
        await h.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  await background.worker.drain();
  assert.deepEqual(
    [await count('idempotency_keys'), await count('events'), await count('webhook_attempts')],
    [1, 1, 1],
  );

  h.clock.advance(DAY_MS + 3_600_000);
  await background.worker.drain();
  assert.deepEqual(
    [await count('idempotency_keys'), await count('events'), await count('webhook_attempts')],
    [0, 1, 1],
  );

  const recent = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: 'recent' });
  await h.ctx.db.deleteFrom('jobs').where('kind', '=', 'webhook.delivery').execute();
  h.clock.advance(89 * DAY_MS);
  await background.worker.drain();
  const events = await h.ctx.db.selectFrom('events').select('id').execute();
  assert.deepEqual(
    events.map((e) => e.id),
    [recent],
  );
  assert.notEqual(recent, oldEvent);
  assert.equal(await count('webhook_attempts'), 0);
  const recurring = await h.ctx.db.selectFrom('jobs').select('kind').orderBy('kind').execute();
  assert.deepEqual(
    recurring.map((job) => job.kind),
    ['prune.distributor_signatures', 'prune.events', 'prune.idempotency', 'prune.webhook_attempts'],
  );
});
