import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenCaller, json } from '../../helpers/harness.ts';
import { givenLink, IPHONE, type Link, open, stats } from './link-pages.fixtures.ts';

test('pre-save: the form while the release date is ahead; the address stored encrypted, counted once, presave.signup without it', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_date: '2026-04-10' });
  const page = await open(h, `/l/${link.code}`);
  assert.ok(page.body.includes(`action="/l/${link.code}/presave"`));
  assert.ok(page.body.includes('name="email"'));

  const form = (email: string) =>
    call(h, 'POST', `/l/${link.code}/presave`, {
      headers: { 'user-agent': IPHONE, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email }).toString(),
    });
  const signed = await form('Fan@Example.com');
  assert.equal(signed.statusCode, 200);
  assert.match(String(signed.headers['content-type']), /^text\/html/);
  assert.ok(!signed.body.includes('name="email"'), 'the form gives way to a confirmation');
  const again = await form('  fan@example.COM ');
  assert.equal(again.statusCode, 200);

  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as { smart_link: Link };
  assert.equal(read.smart_link.presaves, 1);
  assert.equal((await stats(h, key, link.id)).totals.presaves, 1);
  const stored = await h.ctx.db.selectFrom('smart_link_presaves').selectAll().execute();
  assert.equal(stored.length, 1);
  assert.ok(!JSON.stringify(stored).toLowerCase().includes('fan@example.com'));
  assert.ok(!JSON.stringify(stored).toLowerCase().includes('example'));

  const feed = json(await call(h, 'GET', '/api/v1/events', { key })) as {
    events: { event: string; data: { smart_link: Link; presaves: number } }[];
  };
  assert.deepEqual(
    feed.events.map((event) => event.event),
    ['presave.signup'],
  );
  const [event] = feed.events;
  assert.equal(event?.data.presaves, 1);
  assert.equal(event?.data.smart_link.id, link.id);
  assert.equal(event?.data.smart_link.presaves, 1);
  assert.ok(!JSON.stringify(feed).toLowerCase().includes('example.com'));

  const invalid = await form('not-an-address');
  assert.equal(invalid.statusCode, 400);
  assert.ok(invalid.body.includes('role="alert"'));
  assert.ok(invalid.body.includes('value="not-an-address"'));

  h.clock.advance(40 * 86_400_000);
  const closedPage = await open(h, `/l/${link.code}`);
  assert.ok(!closedPage.body.includes('name="email"'));
  const closed = await form('late@example.com');
  assert.equal(closed.statusCode, 409);
  assert.equal((await h.ctx.db.selectFrom('smart_link_presaves').selectAll().execute()).length, 1);
});

test("the pre-save address opened directly leads to the page; a form without an address gets the page's message", async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_date: '2026-04-10' });
  const reload = await open(h, `/l/${link.code}/presave`);
  assert.equal(reload.statusCode, 302);
  assert.equal(reload.headers.location, link.url);
  assert.equal((await open(h, '/l/Nothing1/presave')).statusCode, 404);

  const empty = await call(h, 'POST', `/l/${link.code}/presave`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  assert.equal(empty.statusCode, 400);
  assert.match(String(empty.headers['content-type']), /^text\/html/);
  assert.ok(empty.body.includes('role="alert"'));
  assert.equal((await stats(h, key, link.id)).totals.presaves, 0);
});

test('pre-saves and link changes at the same time all succeed (no deadlock between them)', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const link = await givenLink(h, key, { release_date: '2026-09-01' });
  const work: Promise<{ statusCode: number }>[] = [];
  for (let i = 0; i < 30; i += 1) {
    work.push(
      call(h, 'POST', `/l/${link.code}/presave`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=fan${i}%40example.com`,
        remoteAddress: `10.0.${i}.1`,
      }),
    );
    if (i % 3 === 0) {
      const enabled = i % 2 === 0;
      work.push(
        call(h, 'PATCH', `/api/v1/smart-links/${link.id}`, { key, payload: { title: `Take ${i}`, enabled } }),
      );
    }
  }
  const answers = await Promise.all(work);
  assert.deepEqual(
    answers.filter((answer) => answer.statusCode >= 500),
    [],
  );
  const read = json(await call(h, 'GET', `/api/v1/smart-links/${link.id}`, { key })) as { smart_link: Link };
  const stored = await h.ctx.db.selectFrom('smart_link_presaves').select('id').execute();
  assert.equal(read.smart_link.presaves, stored.length);
});
