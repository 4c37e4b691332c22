import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateLabel } from '../../src/modules/labels/labels.service.ts';
import { addMember } from '../../src/modules/team/team.service.ts';
import { BASE_URL, buildHarness, call, givenCaller, type Harness, json } from '../helpers/harness.ts';

async function teamOf(h: Harness, size: number) {
  const caller = await givenCaller(h, { plan: 'enterprise' });
  for (let i = 1; i <= size; i++) {
    await addMember(h.ctx, { labelId: caller.label.id, login: `m${i}`, name: `Member ${i}`, role: 'viewer' });
  }
  return caller;
}

const logins = (body: unknown) => (body as { members: Array<{ login: string }> }).members.map((m) => m.login);

test('lists page 20 at a time by default, with total in the body and X-Total-Count', async (t) => {
  const h = await buildHarness(t);
  const { key } = await teamOf(h, 45);
  const response = await call(h, 'GET', '/api/v1/team', { key });
  assert.equal(response.statusCode, 200);
  const body = json(response) as { page: number; per_page: number; total: number };
  assert.deepEqual(
    { page: body.page, per_page: body.per_page, total: body.total },
    { page: 1, per_page: 20, total: 45 },
  );
  assert.deepEqual(
    logins(body),
    Array.from({ length: 20 }, (_, i) => `m${i + 1}`),
  );
  assert.equal(response.headers['x-total-count'], '45');
  assert.equal(
    response.headers.link,
    `<${BASE_URL}/api/v1/team?page=2&per_page=20>; rel="next", <${BASE_URL}/api/v1/team?page=3&per_page=20>; rel="last"`,
  );
});

test('Link has absolute next, prev and last that keep the other query parameters', async (t) => {
  const h = await buildHarness(t);
  const { key } = await teamOf(h, 45);
  const response = await call(h, 'GET', '/api/v1/team?per_page=10&page=3&sort=login', { key });
  assert.deepEqual(logins(json(response)), [
    'm21',
    'm22',
    'm23',
    'm24',
    'm25',
    'm26',
    'm27',
    'm28',
    'm29',
    'm30',
  ]);
  assert.equal(
    response.headers.link,
    [
      `<${BASE_URL}/api/v1/team?page=4&per_page=10&sort=login>; rel="next"`,
      `<${BASE_URL}/api/v1/team?page=2&per_page=10&sort=login>; rel="prev"`,
      `<${BASE_URL}/api/v1/team?page=5&per_page=10&sort=login>; rel="last"`,
    ].join(', '),
  );
  const last = await call(h, 'GET', '/api/v1/team?per_page=10&page=5', { key });
  assert.deepEqual(logins(json(last)), ['m41', 'm42', 'm43', 'm44', 'm45']);
  assert.doesNotMatch(String(last.headers.link), /rel="next"/);
  const beyond = await call(h, 'GET', '/api/v1/team?per_page=10&page=9', { key });
  assert.deepEqual(logins(json(beyond)), []);
  assert.equal((json(beyond) as { total: number }).total, 45);
});

test('per_page over 100 is clamped to 100', async (t) => {
  const h = await buildHarness(t);
  const { key, label } = await teamOf(h, 0);
  await updateLabel(h.ctx, label.id, { limits: [['members', null]] });
  for (let i = 1; i <= 101; i++) {
    await addMember(h.ctx, { labelId: label.id, login: `p${i}`, name: `P ${i}`, role: 'viewer' });
  }
  const response = await call(h, 'GET', '/api/v1/team?per_page=500', { key });
  const body = json(response) as { per_page: number; members: unknown[]; total: number };
  assert.equal(body.per_page, 100);
  assert.equal(body.members.length, 100);
  assert.equal(body.total, 101);
  assert.match(String(response.headers.link), /page=2&per_page=100>; rel="next"/);
});

test('per_page or page below 1 or not a number is 400 invalid with field', async (t) => {
  const h = await buildHarness(t);
  const { key } = await teamOf(h, 1);
  for (const [query, field] of [
    ['per_page=0', 'per_page'],
    ['per_page=-5', 'per_page'],
    ['per_page=ten', 'per_page'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=99999999999999999999', 'page'],
  ] as const) {
    const response = await call(h, 'GET', `/api/v1/team?${query}`, { key });
    assert.equal(response.statusCode, 400, query);
    const body = json(response) as { code: string; field: string; error: string };
    assert.equal(body.code, 'invalid', query);
    assert.equal(body.field, field, query);
    assert.match(body.error, new RegExp(`^${field} `), query);
  }
});
