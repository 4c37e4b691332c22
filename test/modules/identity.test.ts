import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateLabel } from '../../src/modules/labels/labels.service.ts';
import { PLANS } from '../../src/modules/plans/plans.catalog.ts';
import { addMember } from '../../src/modules/team/team.service.ts';
import { BASE_URL, buildHarness, call, givenCaller, givenKey, json } from '../helpers/harness.ts';

const ALL_SCOPES = [
  'catalog:read',
  'stats:read',
  'finance:read',
  'links:read',
  'links:write',
  'catalog:write',
  'releases:submit',
  'team:read',
  'support:write',
  'webhooks:manage',
];

test('GET /me returns label, key, plan with limits, usage and features, rate limit, version and addresses', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'label', scopes: ['catalog:read', 'team:read'] });
  await addMember(h.ctx, { labelId: label.id, login: 'ana', name: 'Ana', role: 'owner' });
  await givenKey(h, label.id, { sandbox: true });
  const response = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    label: { id: label.id, name: 'Northern Lights Records', slug: 'northern-lights-records' },
    key: {
      prefix: key.slice(0, 12),
      scopes: ['catalog:read', 'team:read'],
      created_at: '2026-03-02T10:00:00.000Z',
    },
    plan: {
      key: 'label',
      name: 'Label',
      commission_rate: 0.15,
      limits: { releases: 500, artists: null, members: 5, links: null, api_keys: 5, webhooks: 3, rate: 120 },
      usage: { releases: 0, artists: 0, members: 1, links: 0, api_keys: 1, webhooks: 0 },
      features: {
        bot: true,
        events_feed: true,
        csv_export: false,
        webhooks: true,
        full_api: true,
        link_appearance: true,
        personal_mail: true,
        priority_support: false,
        sla: false,
        personal_manager: false,
      },
    },
    rate_limit: { per_minute: 120 },
    api_version: '1.1.0',
    docs: `${BASE_URL}/api/v1/docs`,
    openapi: `${BASE_URL}/api/v1/openapi.json`,
  });
});

test('/me shows per-label limit and commission overrides (Enterprise agreements)', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'enterprise' });
  await updateLabel(h.ctx, label.id, {
    limits: [
      ['releases', 5000],
      ['rate', 100_000],
    ],
    commission: 0.08,
  });
  const me = json(await call(h, 'GET', '/api/v1/me', { key })) as {
    plan: { commission_rate: number; limits: Record<string, number | null> };
    rate_limit: { per_minute: number };
  };
  assert.equal(me.plan.commission_rate, 0.08);
  assert.deepEqual(me.plan.limits, {
    releases: 5000,
    artists: null,
    members: 50,
    links: null,
    api_keys: 25,
    webhooks: 25,
    rate: 100_000,
  });
  assert.deepEqual(me.rate_limit, { per_minute: 100_000 });

  await updateLabel(h.ctx, label.id, { limits: [['releases', 'default']], commission: 'default' });
  const reset = json(await call(h, 'GET', '/api/v1/me', { key })) as typeof me;
  assert.equal(reset.plan.limits.releases, null);
  assert.equal(reset.plan.commission_rate, PLANS.enterprise.commission_rate);
});

test('/me is answered from what it showed until something it shows changes', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'label' });
  type Me = { plan: { key: string; usage: { members: number } } };
  const first = await call(h, 'GET', '/api/v1/me', { key });
  const again = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(again.body, first.body);
  assert.equal(again.headers.etag, first.headers.etag);
  assert.equal(again.headers['content-type'], 'application/json; charset=utf-8');
  const unchanged = await call(h, 'GET', '/api/v1/me', {
    key,
    headers: { 'if-none-match': String(first.headers.etag) },
  });
  assert.equal(unchanged.statusCode, 304);
  assert.equal(unchanged.body, '');

  await addMember(h.ctx, { labelId: label.id, login: 'ana', name: 'Ana', role: 'owner' });
  const withMember = await call(h, 'GET', '/api/v1/me', {
    key,
    headers: { 'if-none-match': String(first.headers.etag) },
  });
  assert.equal(withMember.statusCode, 200);
  assert.notEqual(withMember.headers.etag, first.headers.etag);
  assert.equal((json(withMember) as Me).plan.usage.members, 1);

  await updateLabel(h.ctx, label.id, { plan: 'pro' });
  const upgraded = json(await call(h, 'GET', '/api/v1/me', { key })) as Me;
  assert.equal(upgraded.plan.key, 'pro');
  assert.equal(upgraded.plan.usage.members, 1);
});

test('GET /me/usage shows each limit with its use and the request budget', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'start', scopes: ['catalog:read'] });
  await addMember(h.ctx, { labelId: label.id, login: 'ana', name: 'Ana', role: 'viewer' });
  const response = await call(h, 'GET', '/api/v1/me/usage', { key });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(json(response), {
    plan: 'start',
    usage: {
      releases: { used: 0, limit: 100, remaining: 100 },
      artists: { used: 0, limit: null, remaining: null },
      members: { used: 1, limit: 2, remaining: 1 },
      links: { used: 0, limit: 50, remaining: 50 },
      api_keys: { used: 1, limit: 1, remaining: 0 },
      webhooks: { used: 0, limit: 0, remaining: 0 },
    },
    rate_limit: { per_minute: 60, remaining: 59, reset: Date.parse('2026-03-02T10:01:00.000Z') / 1000 },
  });
});

test('GET /plans needs no key and lists the four plans with prices, limits and features', async (t) => {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/plans');
  assert.equal(response.statusCode, 200);
  const body = json(response) as {
    currency: string;
    plans: Array<{
      key: string;
      price_usd: number | null;
      commission_rate: number;
      limits: Record<string, unknown>;
    }>;
  };
  assert.equal(body.currency, 'USD');
  assert.deepEqual(
    body.plans.map((p) => [
      p.key,
      p.price_usd,
      p.commission_rate,
      p.limits.releases,
      p.limits.api_keys,
      p.limits.rate,
    ]),
    [
      ['start', 19, 0.25, 100, 1, 60],
      ['label', 49, 0.15, 500, 5, 120],
      ['pro', 99, 0.15, 2000, 10, 300],
      ['enterprise', null, 0.1, null, 25, 600],
    ],
  );
  assert.deepEqual(body.plans[0], {
    key: 'start',
    name: 'Start',
    price_usd: 19,
    commission_rate: 0.25,
    limits: { releases: 100, artists: null, members: 2, links: 50, api_keys: 1, webhooks: 0, rate: 60 },
    features: {
      bot: false,
      events_feed: false,
      csv_export: false,
      webhooks: false,
      full_api: false,
      link_appearance: false,
      personal_mail: false,
      priority_support: false,
      sla: false,
      personal_manager: false,
    },
    scopes: ['catalog:read', 'stats:read', 'links:read', 'links:write'],
  });
  assert.deepEqual((body.plans[3] as { scopes?: string[] }).scopes, ALL_SCOPES);
});

test('GET /platforms lists at least ten platforms with keys and names, for any key', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h, { plan: 'start', scopes: ['stats:read'] });
  const response = await call(h, 'GET', '/api/v1/platforms', { key });
  assert.equal(response.statusCode, 200);
  const { platforms } = json(response) as { platforms: Array<{ key: string; name: string }> };
  assert.ok(platforms.length >= 10);
  assert.deepEqual(platforms[0], { key: 'spotify', name: 'Spotify' });
  for (const platform of platforms) assert.match(platform.key, /^[a-z_]+$/);
  assert.equal((await call(h, 'GET', '/api/v1/platforms')).statusCode, 401);
});

test('GET /team lists members with role titles and permissions, never e-mail, and seats', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h, { plan: 'label', scopes: ['team:read'] });
  await addMember(h.ctx, {
    labelId: label.id,
    login: 'ana',
    name: 'Ana Lima',
    role: 'owner',
    email: 'ana@label.test',
  });
  h.clock.advance(1000);
  await addMember(h.ctx, {
    labelId: label.id,
    login: 'bo',
    name: 'Bo',
    role: 'accountant',
    email: 'bo@label.test',
  });
  const response = await call(h, 'GET', '/api/v1/team', { key });
  assert.equal(response.statusCode, 200);
  assert.doesNotMatch(response.body, /@label\.test|email/);
  const body = json(response) as { members: Array<{ user_id: number }> };
  assert.deepEqual(json(response), {
    members: [
      {
        user_id: body.members[0]?.user_id,
        login: 'ana',
        name: 'Ana Lima',
        role: 'owner',
        role_title: 'Owner',
        permissions: [
          'catalog.view',
          'catalog.edit',
          'releases.submit',
          'links.manage',
          'stats.view',
          'finance.view',
          'finance.withdraw',
          'members.manage',
          'settings.manage',
          'support.write',
          'label.admin',
        ],
        joined_at: '2026-03-02T10:00:00.000Z',
        last_seen_at: null,
      },
      {
        user_id: body.members[1]?.user_id,
        login: 'bo',
        name: 'Bo',
        role: 'accountant',
        role_title: 'Accountant',
        permissions: ['catalog.view', 'stats.view', 'finance.view', 'finance.withdraw'],
        joined_at: '2026-03-02T10:00:01.000Z',
        last_seen_at: null,
      },
    ],
    seats: { used: 2, max: 5 },
    page: 1,
    per_page: 20,
    total: 2,
  });
});

test("a label's team is not visible to another label", async (t) => {
  const h = await buildHarness(t);
  const first = await givenCaller(h);
  const second = await givenCaller(h);
  await addMember(h.ctx, { labelId: first.label.id, login: 'ana', name: 'Ana', role: 'owner' });
  const body = json(await call(h, 'GET', '/api/v1/team', { key: second.key })) as { total: number };
  assert.equal(body.total, 0);
});

test('GET /status reports the checks and 503 while the database is unreachable', async (t) => {
  const h = await buildHarness(t);
  h.clock.advance(42_500);
  const response = await call(h, 'GET', '/api/v1/status');
  assert.equal(response.statusCode, 200);
  const body = json(response) as { checks: { database: { latency_ms: number } } };
  assert.equal(typeof body.checks.database.latency_ms, 'number');
  assert.deepEqual(json(response), {
    status: 'ok',
    version: '1.1.0',
    time: '2026-03-02T10:00:42.500Z',
    uptime_seconds: 42,
    checks: {
      api: { ok: true },
      database: { ok: true, latency_ms: body.checks.database.latency_ms },
      distributor: { ok: true, last_event_at: null },
      webhooks: { ok: true, deliveries_24h: 0, failed_24h: 0 },
    },
  });

  await h.database.destroy();
  const down = await call(h, 'GET', '/api/v1/status');
  assert.equal(down.statusCode, 503);
  assert.deepEqual(json(down), {
    status: 'unavailable',
    version: '1.1.0',
    time: '2026-03-02T10:00:42.500Z',
    uptime_seconds: 42,
    checks: {
      api: { ok: true },
      database: { ok: false, latency_ms: null },
      distributor: { ok: true, last_event_at: null },
      webhooks: { ok: false, deliveries_24h: 0, failed_24h: 0 },
    },
  });
  assert.equal(down.headers['x-api-version'], '1.1.0');
});
