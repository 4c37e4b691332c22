import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from '../../src/http/rate-limiter.ts';
import { updateLabel } from '../../src/modules/labels/labels.service.ts';
import {
  buildHarness,
  call,
  givenCaller,
  json,
  ManualClock,
  openTestDatabase,
  TEST_REDIS_URL,
} from '../helpers/harness.ts';

type StoreFactory = (t: TestContext) => RateLimiter;

const memoryStore: StoreFactory = () => new MemoryRateLimiter();
/** Each test gets its own key space so runs never see each other's counters. */
const redisStore: StoreFactory = (t) => {
  if (!TEST_REDIS_URL) throw new Error('TEST_REDIS_URL is not set');
  const limiter = new RedisRateLimiter(TEST_REDIS_URL, `labeldesk-test:${randomBytes(6).toString('hex')}:`);
  t.after(() => limiter.close());
  return limiter;
};

const stores: Array<[string, StoreFactory]> = [['memory', memoryStore]];
if (TEST_REDIS_URL) stores.push(['redis', redisStore]);
else
  test('rate limits on Redis (set TEST_REDIS_URL to run)', { skip: 'TEST_REDIS_URL is not set' }, () => {});

for (const [storeName, store] of stores) {
  test(`[${storeName}] keyed responses carry X-RateLimit-Limit, -Remaining and -Reset`, async (t) => {
    const h = await buildHarness(t, { limiter: store(t) });
    const { key } = await givenCaller(h, { plan: 'label' });
    const startSeconds = Math.ceil((h.clock.now().getTime() + 60_000) / 1000);
    const first = await call(h, 'GET', '/api/v1/me', { key });
    assert.equal(first.headers['x-ratelimit-limit'], '120');
    assert.equal(first.headers['x-ratelimit-remaining'], '119');
    assert.equal(first.headers['x-ratelimit-reset'], String(startSeconds));
    h.clock.advance(5_000);
    const second = await call(h, 'GET', '/api/v1/platforms', { key });
    assert.equal(second.headers['x-ratelimit-remaining'], '118');
    assert.equal(
      second.headers['x-ratelimit-reset'],
      String(startSeconds),
      'reset follows the oldest request',
    );
    const forbidden = await call(h, 'GET', '/api/v1/team', {
      key: (await givenCaller(h, { scopes: ['catalog:read'] })).key,
    });
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.headers['x-ratelimit-remaining'], '119');
  });

  test(`[${storeName}] 200 parallel requests against a limit of 60 yield exactly 60 successes`, async (t) => {
    const h = await buildHarness(t, { limiter: store(t) });
    const { key } = await givenCaller(h, { plan: 'start' });
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => call(h, 'GET', '/api/v1/me', { key })),
    );
    const ok = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    assert.equal(ok.length, 60);
    assert.equal(limited.length, 140);
    for (const response of limited) {
      assert.deepEqual(json(response), { error: 'Too many requests', code: 'rate_limited' });
      assert.equal(response.headers['retry-after'], '60');
      assert.equal(response.headers['x-ratelimit-remaining'], '0');
      assert.equal(response.headers['x-ratelimit-limit'], '60');
    }
    assert.deepEqual(
      ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, i) => i),
    );
  });

  test(`[${storeName}] the window slides: requests leave it 60 seconds after they were made`, async (t) => {
    const h = await buildHarness(t, { limiter: store(t) });
    const { key } = await givenCaller(h, { plan: 'start' });
    const burst = (n: number) =>
      Promise.all(Array.from({ length: n }, () => call(h, 'GET', '/api/v1/me', { key })));
    await burst(30);
    h.clock.advance(30_000);
    await burst(30);
    h.clock.advance(29_000);
    const full = await call(h, 'GET', '/api/v1/me', { key });
    assert.equal(full.statusCode, 429);
    assert.equal(full.headers['retry-after'], '1');
    h.clock.advance(1_001);
    const freed = await burst(31);
    assert.equal(freed.filter((r) => r.statusCode === 200).length, 30, 'the first 30 have left the window');
    h.clock.advance(30_000);
    assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 200);
  });

  test(`[${storeName}] GET /status allows 30 requests a minute per address`, async (t) => {
    const h = await buildHarness(t, { limiter: store(t) });
    const from = (remoteAddress: string) => call(h, 'GET', '/api/v1/status', { remoteAddress });
    for (let i = 0; i < 30; i++) assert.equal((await from('198.51.100.1')).statusCode, 200);
    const limited = await from('198.51.100.1');
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(json(limited), { error: 'Too many requests', code: 'rate_limited' });
    assert.equal(limited.headers['retry-after'], '60');
    assert.equal((await from('198.51.100.2')).statusCode, 200);
    h.clock.advance(60_001);
    assert.equal((await from('198.51.100.1')).statusCode, 200);
  });
}

test('the rate comes from the plan, and an operator override applies on the next request', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'pro' });
  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).headers['x-ratelimit-limit'], '300');
  await updateLabel(h.ctx, label.id, { limits: [['rate', 100_000]] });
  const raised = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(raised.headers['x-ratelimit-limit'], '100000');
  assert.equal((json(raised) as { rate_limit: { per_minute: number } }).rate_limit.per_minute, 100_000);
});

test('keys have budgets of their own', async (t) => {
  const h = await buildHarness(t);
  const first = await givenCaller(h, { plan: 'start' });
  const second = await givenCaller(h, { plan: 'start' });
  await Promise.all(Array.from({ length: 60 }, () => call(h, 'GET', '/api/v1/me', { key: first.key })));
  assert.equal((await call(h, 'GET', '/api/v1/me', { key: first.key })).statusCode, 429);
  assert.equal((await call(h, 'GET', '/api/v1/me', { key: second.key })).statusCode, 200);
});

test('two server processes on one Redis spend one budget', {
  skip: !TEST_REDIS_URL && 'TEST_REDIS_URL is not set',
}, async (t) => {
  const database = await openTestDatabase(t);
  const clock = new ManualClock();
  const prefix = `labeldesk-test:${randomBytes(6).toString('hex')}:`;
  const limiterA = new RedisRateLimiter(String(TEST_REDIS_URL), prefix);
  const limiterB = new RedisRateLimiter(String(TEST_REDIS_URL), prefix);
  t.after(async () => {
    await limiterA.close();
    await limiterB.close();
  });
  const a = await buildHarness(t, { database, clock, limiter: limiterA });
  const b = await buildHarness(t, { database, clock, limiter: limiterB });
  const { key } = await givenCaller(a, { plan: 'start' });
  const responses = await Promise.all(
    Array.from({ length: 100 }, (_, i) => call(i % 2 === 0 ? a : b, 'GET', '/api/v1/me', { key })),
  );
  assert.equal(responses.filter((r) => r.statusCode === 200).length, 60);
  assert.equal(responses.filter((r) => r.statusCode === 429).length, 40);
});

test('an unlimited rate is not counted and carries no rate headers', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'enterprise' });
  await updateLabel(h.ctx, label.id, { limits: [['rate', null]] });
  const me = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(me.statusCode, 200);
  assert.equal(me.headers['x-ratelimit-limit'], undefined);
  assert.deepEqual((json(me) as { rate_limit: unknown }).rate_limit, { per_minute: null });
  const usage = json(await call(h, 'GET', '/api/v1/me/usage', { key })) as { rate_limit: unknown };
  assert.deepEqual(usage.rate_limit, { per_minute: null, remaining: null, reset: null });
});

test('with the shared limiter unreachable, keyed requests get 503 unavailable, not unmetered service', async (t) => {
  const unreachable = new RedisRateLimiter('redis://127.0.0.1:1', 'labeldesk-test:down:');
  t.after(() => unreachable.close().catch(() => undefined));
  const h = await buildHarness(t, { limiter: unreachable });
  const { key } = await givenCaller(h);
  const response = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(response.statusCode, 503);
  assert.equal(response.headers['retry-after'], '1');
  assert.deepEqual(json(response), {
    error: 'Rate limiting is unavailable; try again shortly',
    code: 'unavailable',
  });
  // GET /status declares a 503 body of its own; an error still answers in the error shape.
  const status = await call(h, 'GET', '/api/v1/status');
  assert.equal(status.statusCode, 503);
  assert.deepEqual(json(status), {
    error: 'Rate limiting is unavailable; try again shortly',
    code: 'unavailable',
  });
});
