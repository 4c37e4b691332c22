// The console's Webhooks page (issue 20): list, add (secret once), enable/disable, "Send test", the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signatureHeader } from '../../../src/modules/webhooks/webhooks.sender.ts';
import { buildHarness, call, givenCaller, givenLabel, type Harness, json } from '../../helpers/harness.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import {
  bodyOf,
  givenWebhook,
  givenWorker,
  HOOK_URL,
  harness,
  LOOPBACK_RECEIVERS,
  liveWorkspace,
  publishEvent,
} from '../../helpers/webhooks.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

async function signedInAs(h: Harness, labelId: number, role: string): Promise<Browser> {
  const { invitePath } = await givenInvitedMember(h, labelId, { login: `${role}-${labelId}`, role });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  return browser;
}

async function addInConsole(browser: Browser, fields: Array<[string, string]>) {
  assert.equal((await browser.get('/console/webhooks')).statusCode, 200);
  return browser.post('/console/webhooks', fields);
}

function secretOf(body: string): string {
  const secret =
    /<label for="new-secret">Webhook secret<\/label>\s*<span class="copy"><input id="new-secret" readonly value="([^"]+)"/.exec(
      body,
    )?.[1];
  assert.ok(secret, 'the secret is shown in the "Webhook secret" field');
  return secret;
}

/** The delivery's signature header is the one `secret` makes for its body and time. */
function assertSignedWith(
  delivery: { headers: Record<string, unknown>; body: string },
  secret: string,
  why: string,
) {
  const signature = String(delivery.headers['x-service-signature']);
  const unixSeconds = Number(/^t=(\d+)/.exec(signature)?.[1]);
  assert.equal(signature, signatureHeader(secret, unixSeconds, delivery.body), why);
}

function rowOf(body: string, id: number): string {
  const row = new RegExp(`<tr><td id="webhook-${id}">[\\s\\S]*?</tr>`).exec(body)?.[0];
  assert.ok(row, `a row for webhook ${id}`);
  return row;
}

function errorOf(body: string): string | undefined {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
}

async function webhookIds(h: Harness, key: string): Promise<number[]> {
  const listed = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as {
    webhooks: Array<{ id: number }>;
  };
  return listed.webhooks.map((webhook) => webhook.id);
}

test('a webhook added in the console gets a signed test delivery, shown in its log', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const owner = await signedInAs(h, label.id, 'owner');
  const worker = givenWorker(t, h, receiver);

  const added = await addInConsole(owner, [
    ['url', `${receiver.origin}/hooks`],
    ['events', 'webhook.test'],
    ['events', 'release.live'],
  ]);
  assert.equal(added.statusCode, 200, added.body);
  assert.match(added.body, /it is not shown again/);
  const secret = secretOf(added.body);
  const [id] = await webhookIds(h, key);
  assert.ok(id);
  const row = rowOf(added.body, id);
  for (const cell of [
    `${receiver.origin}/hooks</a>`,
    '<td>webhook.test, release.live</td>',
    '<td>enabled</td>',
  ])
    assert.ok(row.includes(cell), cell);
  assert.doesNotMatch(
    (await owner.get('/console/webhooks')).body,
    new RegExp(secret),
    'the secret is shown once',
  );

  assert.match(row, />Send test<\/button>/);
  const sent = await owner.post(`/console/webhooks/${id}/test`, {});
  assert.equal(sent.statusCode, 303);
  assert.equal(sent.headers.location, `/console/webhooks/${id}`);
  await worker.worker.drain();

  const [delivery] = receiver.received;
  assert.ok(delivery, 'the test delivery arrived');
  assertSignedWith(delivery, secret, 'signed with the shown secret');

  const log = await owner.get(`/console/webhooks/${id}`);
  assert.equal(log.statusCode, 200);
  assert.match(
    log.body,
    /<tr><td id="attempt-[^"]+-1"><time[^>]*>[^<]+<\/time> webhook\.test<\/td><td class="n">\d+<\/td><td class="n">1<\/td><td class="n">200<\/td><td class="n">\d+ ms<\/td><td>delivered<\/td><td><form method="post" action="\/console\/webhooks\/\d+\/redeliver">/,
  );
});

test('a failed attempt shows its status and error; a disabled webhook offers no test and refuses one', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  receiver.answerWith(() => ({ status: 500 }));
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks`);
  const owner = await signedInAs(h, label.id, 'owner');
  const worker = givenWorker(t, h, receiver);

  await owner.get('/console/webhooks');
  assert.equal((await owner.post(`/console/webhooks/${webhook.id}/test`, {})).statusCode, 303);
  await worker.worker.drain();
  const log = await owner.get(`/console/webhooks/${webhook.id}`);
  assert.match(log.body, /<td class="n">500<\/td><td class="n">\d+ ms<\/td><td>[^<]*500[^<]*<\/td>/);

  assert.equal((await owner.post(`/console/webhooks/${webhook.id}/disable`, {})).statusCode, 303);
  const disabled = rowOf((await owner.get('/console/webhooks')).body, webhook.id);
  assert.ok(disabled.includes('<td>disabled</td>'));
  assert.doesNotMatch(disabled, /Send test/);
  const refused = await owner.post(`/console/webhooks/${webhook.id}/test`, {});
  assert.equal(refused.statusCode, 409);
  assert.match(refused.body, /This webhook is disabled/);

  assert.equal((await owner.post(`/console/webhooks/${webhook.id}/enable`, {})).statusCode, 303);
  const listed = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as {
    webhooks: Array<{ id: number; active: boolean }>;
  };
  assert.deepEqual(
    listed.webhooks.map(({ id, active }) => ({ id, active })),
    [{ id: webhook.id, active: true }],
  );
});

test("addresses are refused by the API's rules (SSRF), at least one event is needed, the plan's limit applies", async (t) => {
  const h = await harness(t);
  const label = await givenLabel(h, { plan: 'label', contractSigned: true });
  const owner = await signedInAs(h, label.id, 'owner');

  for (const url of [
    'https://rebound.example.com/hooks',
    'https://10.0.0.1/hooks',
    'http://hooks.example.com/',
  ]) {
    const refused = await addInConsole(owner, [
      ['url', url],
      ['events', 'webhook.test'],
    ]);
    assert.equal(refused.statusCode, 400, url);
    assert.match(errorOf(refused.body) ?? '', /cannot receive webhooks/, url);
    assert.ok(refused.body.includes(`value="${url}"`), 'the form keeps the address');
  }
  const none = await addInConsole(owner, [['url', HOOK_URL]]);
  assert.equal(none.statusCode, 400);
  assert.equal(errorOf(none.body), 'Choose at least one event');
  assert.match((await owner.get('/console/webhooks')).body, /No webhooks yet\./);

  for (let i = 0; i < 3; i += 1) {
    const added = await addInConsole(owner, [
      ['url', `${HOOK_URL}/${i}`],
      ['events', 'webhook.test'],
    ]);
    assert.equal(added.statusCode, 200);
  }
  const limited = await addInConsole(owner, [
    ['url', HOOK_URL],
    ['events', 'webhook.test'],
  ]);
  assert.equal(limited.statusCode, 403);
  assert.equal(errorOf(limited.body), 'The webhooks limit of the plan is used up');
});

test("another label's webhook answers 404 pages; a viewer gets 403 and no link; a plan without webhooks 403", async (t) => {
  const h = await harness(t);
  const ours = await givenLabel(h, { name: 'Ours', plan: 'label', contractSigned: true });
  const theirs = await givenCaller(h);
  const theirHook = await givenWebhook(h, theirs.key, HOOK_URL);
  const owner = await signedInAs(h, ours.id, 'owner');

  assert.equal((await owner.get(`/console/webhooks/${theirHook.id}`)).statusCode, 404);
  assert.doesNotMatch((await owner.get('/console/webhooks')).body, /93\.184\.215\.14/);
  for (const action of ['test', 'disable', 'enable']) {
    const refused = await owner.post(`/console/webhooks/${theirHook.id}/${action}`, {});
    assert.equal(refused.statusCode, 404, action);
    assert.match(refused.body, /Webhook not found/);
  }
  assert.equal((await owner.get('/console/webhooks/not-a-number')).statusCode, 404);

  const viewer = await signedInAs(h, ours.id, 'viewer');
  assert.doesNotMatch((await viewer.get('/console')).body, /href="\/console\/webhooks"/);
  assert.match((await owner.get('/console')).body, /<a href="\/console\/webhooks">Webhooks<\/a>/);
  assert.equal((await viewer.get('/console/webhooks')).statusCode, 403);

  const start = await givenLabel(h, { name: 'Small', plan: 'start', contractSigned: true });
  const startOwner = await signedInAs(h, start.id, 'owner');
  const page = await startOwner.get('/console/webhooks');
  assert.equal(page.statusCode, 403);
  assert.equal(errorOf(page.body), 'This needs the Label plan or above');
});

test('"Redeliver" sends an event of the label again, marked as a redelivery; a wrong id is shown beside the form', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks`);
  const other = await givenCaller(h);
  const otherEvent = await publishEvent(h, liveWorkspace(other.label.id), 'webhook.test', {});
  const eventId = await publishEvent(h, liveWorkspace(label.id), 'webhook.test', { n: 1 });
  const owner = await signedInAs(h, label.id, 'owner');
  const worker = givenWorker(t, h, receiver);

  const log = await owner.get(`/console/webhooks/${webhook.id}`);
  assert.match(log.body, /<label>Event id <input name="event_id"/);
  assert.match(log.body, /<button type="submit">Redeliver<\/button>/);
  for (const [text, status, message] of [
    [String(otherEvent), 400, /No event with this id in this workspace/],
    ['12abc', 400, /The event id is a positive whole number/],
  ] as const) {
    const refused = await owner.post(`/console/webhooks/${webhook.id}/redeliver`, { event_id: text });
    assert.equal(refused.statusCode, status, text);
    assert.match(errorOf(refused.body) ?? '', message);
    assert.ok(refused.body.includes(`value="${text}"`), 'the form keeps the id');
  }

  const sent = await owner.post(`/console/webhooks/${webhook.id}/redeliver`, { event_id: String(eventId) });
  assert.equal(sent.statusCode, 303);
  assert.equal(sent.headers.location, `/console/webhooks/${webhook.id}`);
  await worker.worker.drain();
  // The event's own delivery went out when it was published; the redelivery follows it.
  const redelivered = receiver.received.map(bodyOf).filter((body) => body.redelivery);
  assert.deepEqual(
    redelivered.map((body) => ({ redelivery: body.redelivery, event_id: body.event_id })),
    [{ redelivery: true, event_id: eventId }],
  );
  assert.match((await owner.get(`/console/webhooks/${webhook.id}`)).body, /<td>delivered<\/td>/);
});

test('each logged attempt has its own "Redeliver", which sends that event again; a disabled webhook offers none', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks`);
  const owner = await signedInAs(h, label.id, 'owner');
  const worker = givenWorker(t, h, receiver);
  const { event_id } = json(await call(h, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { key })) as {
    event_id: number;
  };
  await worker.worker.drain();

  const log = (await owner.get(`/console/webhooks/${webhook.id}`)).body;
  const row = /<tr><td id="(attempt-[^"]+)">[\s\S]*?<\/tr>/.exec(log);
  assert.ok(row, 'a row for the attempt');
  assert.ok(row[0].includes(`<td class="n">${event_id}</td>`), 'the row names its event');
  assert.ok(
    row[0].includes(
      `<input type="hidden" name="event_id" value="${event_id}"><button type="submit" aria-describedby="${row[1]}">Redeliver</button>`,
    ),
    row[0],
  );
  const sent = await owner.post(`/console/webhooks/${webhook.id}/redeliver`, { event_id: String(event_id) });
  assert.equal(sent.statusCode, 303);
  await worker.worker.drain();
  assert.deepEqual(
    receiver.received.map(bodyOf).map((body) => [body.event, body.redelivery, body.event_id]),
    [
      ['webhook.test', undefined, undefined],
      ['webhook.test', true, event_id],
    ],
  );
  const deliveries = json(await call(h, 'GET', `/api/v1/webhooks/${webhook.id}/deliveries`, { key })) as {
    deliveries: Array<{ event_id: number | null }>;
  };
  assert.deepEqual(
    deliveries.deliveries.map((attempt) => attempt.event_id),
    [event_id, event_id],
    'the API log names each attempt’s event too',
  );

  assert.equal((await owner.post(`/console/webhooks/${webhook.id}/disable`, {})).statusCode, 303);
  const disabled = (await owner.get(`/console/webhooks/${webhook.id}`)).body;
  assert.equal([...disabled.matchAll(/aria-describedby="attempt-[^"]+">Redeliver</g)].length, 0);
  assert.match(disabled, /· disabled ·/);
});

test('"Save events" changes what the webhook receives; an empty choice is refused beside the form', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, HOOK_URL, ['webhook.test']);
  const owner = await signedInAs(h, label.id, 'owner');

  const page = (await owner.get(`/console/webhooks/${webhook.id}`)).body;
  assert.match(page, /<input type="checkbox" name="events" value="webhook\.test" checked> webhook\.test/);
  assert.match(page, /<button type="submit">Save events<\/button>/);

  const refused = await owner.post(`/console/webhooks/${webhook.id}/events`, []);
  assert.equal(refused.statusCode, 400);
  assert.equal(errorOf(refused.body), 'Choose at least one event');
  assert.doesNotMatch(refused.body, /value="webhook\.test" checked/, 'the form shows the empty choice made');

  const saved = await owner.post(`/console/webhooks/${webhook.id}/events`, [
    ['events', 'release.approved'],
    ['events', 'release.rejected'],
  ]);
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, `/console/webhooks/${webhook.id}`);
  const listed = json(await call(h, 'GET', '/api/v1/webhooks', { key })) as {
    webhooks: Array<{ id: number; events: string[] }>;
  };
  assert.deepEqual(listed.webhooks, [
    { ...listed.webhooks[0], id: webhook.id, events: ['release.approved', 'release.rejected'] },
  ]);
  const after = (await owner.get(`/console/webhooks/${webhook.id}`)).body;
  assert.match(after, /value="release\.approved" checked/);
  assert.doesNotMatch(after, /value="webhook\.test" checked/);
});

test('"Rotate secret" shows the new secret once; deliveries are signed with it from then on', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks`);
  const owner = await signedInAs(h, label.id, 'owner');
  const worker = givenWorker(t, h, receiver);

  await owner.get(`/console/webhooks/${webhook.id}`);
  const rotated = await owner.post(`/console/webhooks/${webhook.id}/rotate-secret`, {});
  assert.equal(rotated.statusCode, 200);
  assert.match(rotated.body, /<h2 id="new-secret-heading">New secret<\/h2>/);
  const secret = secretOf(rotated.body);
  assert.match(secret, /^svcwh_/);
  assert.notEqual(secret, webhook.secret);
  assert.ok(!(await owner.get(`/console/webhooks/${webhook.id}`)).body.includes(secret), 'shown once');

  assert.equal((await owner.post(`/console/webhooks/${webhook.id}/test`, {})).statusCode, 303);
  await worker.worker.drain();
  const [delivery] = receiver.received;
  assert.ok(delivery);
  assertSignedWith(delivery, secret, 'signed with the new secret');
});

test('"Recover" sends again what failed since a moment (UTC) and says how many; a bad moment is shown beside the form', async (t) => {
  const h = await buildHarness(t, { env: LOOPBACK_RECEIVERS });
  const receiver = await startReceiver(t);
  const { label, key } = await givenCaller(h);
  const webhook = await givenWebhook(h, key, `${receiver.origin}/hooks`, ['release.live']);
  const owner = await signedInAs(h, label.id, 'owner');
  const worker = givenWorker(t, h, receiver);
  receiver.answerWith(() => ({ status: 503 }));
  const missed = await publishEvent(h, liveWorkspace(label.id), 'release.live', { upc: '036000291452' });
  for (const wait of [0, 30_000, 300_000]) {
    h.clock.advance(wait);
    await worker.worker.drain();
  }
  receiver.answerWith(() => ({ status: 200 }));

  const page = (await owner.get(`/console/webhooks/${webhook.id}`)).body;
  assert.match(
    page,
    /<label>Since \(UTC\) <input type="datetime-local" name="since" step="1" required value=""/,
  );
  assert.match(page, /<button type="submit">Recover<\/button>/);
  for (const [since, message] of [
    ['2026-02-01T10:00', /since may be at most 14 days back, not before 2026-02-16T10:05:30\.000Z/],
    ['soon', /since must be a date-time/],
    ['2026-03-03T10:00', /since is in the future/],
  ] as const) {
    const refused = await owner.post(`/console/webhooks/${webhook.id}/recover`, { since });
    assert.equal(refused.statusCode, 400, since);
    assert.match(errorOf(refused.body) ?? '', message);
    assert.ok(refused.body.includes(`value="${since}"`), 'the form keeps the moment');
  }

  const recovered = await owner.post(`/console/webhooks/${webhook.id}/recover`, {
    since: '2026-03-02T09:00',
  });
  assert.equal(recovered.statusCode, 200);
  assert.match(recovered.body, /<p role="status">1 delivery queued\.<\/p>/);
  const again = await owner.post(`/console/webhooks/${webhook.id}/recover`, { since: '2026-03-02T09:00:00' });
  assert.match(again.body, /<p role="status">0 deliveries queued\.<\/p>/);
  await worker.worker.drain();
  assert.deepEqual(
    receiver.received.map(bodyOf).map((body) => [body.event, body.redelivery, body.event_id]),
    [
      ['release.live', undefined, undefined],
      ['release.live', undefined, undefined],
      ['release.live', undefined, undefined],
      ['release.live', true, missed],
    ],
  );
});
