import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replyToMessage, supportQueue } from '../../src/modules/support/support.service.ts';
import { givenRelease } from '../helpers/catalog.ts';
import {
  BASE_URL,
  buildHarness,
  call,
  givenCaller,
  givenKey,
  givenLabel,
  type Harness,
  json,
} from '../helpers/harness.ts';

const NOW = '2026-03-02T10:00:00.000Z';

interface Created {
  request: { id: number; type: string; status: string; created_at: string; sandbox?: true };
}

interface Listed {
  requests: Array<Record<string, unknown>>;
  page: number;
  per_page: number;
  total: number;
}

async function sendMessage(h: Harness, key: string, payload?: unknown, headers?: Record<string, string>) {
  return call(h, 'POST', '/api/v1/support', {
    key,
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
    ...(headers && { headers }),
  });
}

async function storedRequests(h: Harness) {
  return h.ctx.db.selectFrom('support_requests').selectAll().orderBy('id').execute();
}

/** A message made through the API; returns its id. */
async function givenMessage(h: Harness, key: string, payload: Record<string, unknown>): Promise<number> {
  const response = await sendMessage(h, key, payload);
  assert.equal(response.statusCode, 201, response.body);
  return (json(response) as Created).request.id;
}

function invalid(field: string, error: string) {
  return { error, code: 'invalid', field };
}

test('POST /support: 201 with a pending message request, stored trimmed with its release', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const release = await givenRelease(h, label.id);

  h.clock.advance(1000);
  const response = await sendMessage(h, key, {
    message: '  The cover of Night Drive shows on one platform only.\nCan you check?  ',
    release_id: release.id,
  });
  assert.equal(response.statusCode, 201, response.body);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assert.equal(response.headers.location, undefined, 'no GET of one request exists to point at');
  assert.equal(response.headers['x-sandbox'], undefined);
  const created = json(response) as Created;
  assert.deepEqual(created, {
    request: {
      id: created.request.id,
      type: 'message',
      status: 'pending',
      created_at: '2026-03-02T10:00:01.000Z',
    },
  });

  const withoutRelease = await sendMessage(h, key, { message: 'A question about payouts', release_id: null });
  assert.equal(withoutRelease.statusCode, 201, withoutRelease.body);
  const second = (json(withoutRelease) as Created).request.id;

  assert.deepEqual(await storedRequests(h), [
    {
      id: created.request.id,
      label_id: label.id,
      type: 'message',
      status: 'pending',
      message: 'The cover of Night Drive shows on one platform only.\nCan you check?',
      release_id: release.id,
      reply: null,
      dsps: null,
      created_at: '2026-03-02T10:00:01.000Z',
      updated_at: '2026-03-02T10:00:01.000Z',
    },
    {
      id: second,
      label_id: label.id,
      type: 'message',
      status: 'pending',
      message: 'A question about payouts',
      release_id: null,
      reply: null,
      dsps: null,
      created_at: '2026-03-02T10:00:01.000Z',
      updated_at: '2026-03-02T10:00:01.000Z',
    },
  ]);
  const events = await h.ctx.db.selectFrom('events').select('event').execute();
  assert.deepEqual(events, [], 'a new message publishes nothing');
});

test('POST /support: 400 invalid naming the field for a bad message or release_id, and for no body', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenLabel(h, { name: 'Other Records' });
  const foreign = await givenRelease(h, other.id);

  const cases = [
    [{}, invalid('message', "message must have required property 'message'")],
    [{ message: '' }, invalid('message', 'message must NOT have fewer than 1 characters')],
    [{ message: ' \n\t ' }, invalid('message', 'message must not be empty')],
    [{ message: 'x'.repeat(5001) }, invalid('message', 'message must NOT have more than 5000 characters')],
    [{ message: 42 }, invalid('message', 'message must be string')],
    [
      { message: 'About a release', release_id: foreign.id },
      invalid('release_id', 'No release with this id in this label'),
    ],
    [
      { message: 'About a release', release_id: 999_999 },
      invalid('release_id', 'No release with this id in this label'),
    ],
    [{ message: 'About a release', release_id: '7' }, invalid('release_id', 'release_id must be integer')],
    [undefined, invalid('body', 'body must be object')],
  ] as const;
  for (const [payload, body] of cases) {
    const response = await sendMessage(h, key, payload);
    assert.equal(response.statusCode, 400, JSON.stringify(payload));
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(json(response), body, JSON.stringify(payload)?.slice(0, 80));
  }
  assert.deepEqual(await storedRequests(h), [], 'nothing is stored for a refused message');

  // 5000 characters is the limit, counted as characters (an emoji is one), not bytes or UTF-16 units.
  for (const message of ['x'.repeat(5000), '🎵'.repeat(5000)]) {
    assert.equal((await sendMessage(h, key, { message })).statusCode, 201);
  }
  assert.deepEqual(
    (await storedRequests(h)).map((row) => [row.label_id, [...(row.message ?? '')].length]),
    [
      [label.id, 5000],
      [label.id, 5000],
    ],
  );
});

test('a key without support:write gets 403 forbidden on both routes; no key is 401', async (t) => {
  const h = await buildHarness(t);
  const { label } = await givenCaller(h);
  const readOnly = await givenKey(h, label.id, { scopes: ['catalog:read', 'team:read'] });
  for (const [method, url] of [
    ['POST', '/api/v1/support'],
    ['GET', '/api/v1/support/requests'],
  ] as const) {
    const response = await call(h, method, url, {
      key: readOnly,
      ...(method === 'POST' && { payload: { message: 'Hello' } }),
    });
    assert.equal(response.statusCode, 403, url);
    assert.deepEqual(json(response), {
      error: 'This key lacks the scope support:write',
      code: 'forbidden',
      required_scope: 'support:write',
    });
    const anonymous = await call(h, method, url);
    assert.equal(anonymous.statusCode, 401, url);
    assert.equal((json(anonymous) as { code: string }).code, 'unauthorized');
  }
  assert.deepEqual(await storedRequests(h), []);
});

test('GET /support/requests: messages and takedown requests, newest first, paged; another label sees none', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const live = await givenRelease(h, label.id, { title: 'Live One', status: 'live', upc: '036000291452' });
  const first = await givenMessage(h, key, { message: 'First question' });
  h.clock.advance(1000);
  const takedown = await call(h, 'POST', `/api/v1/releases/${live.id}/takedown-request`, {
    key,
    payload: { reason: 'Rights expired' },
  });
  assert.equal(takedown.statusCode, 201, takedown.body);
  const takedownId = (json(takedown) as Created).request.id;
  h.clock.advance(1000);
  const third = await givenMessage(h, key, { message: 'About Live One', release_id: live.id });

  const response = await call(h, 'GET', '/api/v1/support/requests', { key });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers['x-total-count'], '3');
  assert.ok(response.headers.etag, 'a list is an ETag-able GET');
  assert.equal(response.headers.link, `<${BASE_URL}/api/v1/support/requests?page=1&per_page=20>; rel="last"`);
  assert.deepEqual(json(response), {
    requests: [
      {
        id: third,
        type: 'message',
        status: 'pending',
        message: 'About Live One',
        release_id: live.id,
        reply: null,
        dsps: null,
        created_at: '2026-03-02T10:00:02.000Z',
        updated_at: '2026-03-02T10:00:02.000Z',
      },
      {
        id: takedownId,
        type: 'takedown',
        status: 'pending',
        message: 'Rights expired',
        release_id: live.id,
        reply: null,
        dsps: null,
        created_at: '2026-03-02T10:00:01.000Z',
        updated_at: '2026-03-02T10:00:01.000Z',
      },
      {
        id: first,
        type: 'message',
        status: 'pending',
        message: 'First question',
        release_id: null,
        reply: null,
        dsps: null,
        created_at: NOW,
        updated_at: NOW,
      },
    ],
    page: 1,
    per_page: 20,
    total: 3,
  });

  const second = await call(h, 'GET', '/api/v1/support/requests?per_page=2&page=2', { key });
  assert.equal(second.statusCode, 200);
  assert.equal(second.headers['x-total-count'], '3');
  assert.equal(
    second.headers.link,
    `<${BASE_URL}/api/v1/support/requests?page=1&per_page=2>; rel="prev", ` +
      `<${BASE_URL}/api/v1/support/requests?page=2&per_page=2>; rel="last"`,
  );
  const page = json(second) as Listed;
  assert.deepEqual(
    [page.requests.map((request) => request.id), page.page, page.per_page, page.total],
    [[first], 2, 2, 3],
  );
  const badPage = await call(h, 'GET', '/api/v1/support/requests?page=0', { key });
  assert.equal(badPage.statusCode, 400);
  assert.equal((json(badPage) as { field: string }).field, 'page');

  const other = await givenCaller(h);
  const theirs = await call(h, 'GET', '/api/v1/support/requests', { key: other.key });
  assert.equal(theirs.statusCode, 200);
  assert.equal(theirs.headers['x-total-count'], '0');
  assert.deepEqual(json(theirs), { requests: [], page: 1, per_page: 20, total: 0 });
  const aboutTheirs = await sendMessage(h, other.key, { message: 'Whose release?', release_id: live.id });
  assert.deepEqual(json(aboutTheirs), invalid('release_id', 'No release with this id in this label'));
});

test('the same Idempotency-Key returns the same request once; a different body is 422', async (t) => {
  const h = await buildHarness(t);
  const { key } = await givenCaller(h);
  const headers = { 'idempotency-key': 'support-1' };
  const first = await sendMessage(h, key, { message: 'Hello support' }, headers);
  assert.equal(first.statusCode, 201);
  const again = await sendMessage(h, key, { message: 'Hello support' }, headers);
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(again), json(first));
  const different = await sendMessage(h, key, { message: 'Something else' }, headers);
  assert.equal(different.statusCode, 422);
  assert.equal((json(different) as { code: string }).code, 'idempotency_mismatch');
  assert.equal((await storedRequests(h)).length, 1);
});

test('support replies (the CLI path): the message is answered, support.replied reaches the feed and the list', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const requestId = await givenMessage(h, key, { message: 'Where is my statement?' });

  h.clock.advance(60_000);
  const answeredAt = h.clock.now().toISOString();
  const answered = await replyToMessage(h.ctx, requestId, '  It is out on the 5th of each month.  ');
  assert.deepEqual(answered, {
    id: requestId,
    label_id: label.id,
    type: 'message',
    status: 'answered',
    release_id: null,
    message: 'Where is my statement?',
    reply: 'It is out on the 5th of each month.',
    dsps: null,
    created_at: NOW,
    updated_at: answeredAt,
  });

  const feed = await call(h, 'GET', '/api/v1/events', { key });
  assert.equal(feed.statusCode, 200);
  const { events } = json(feed) as {
    events: Array<{ id: number; event: string; created_at: string; data: unknown }>;
  };
  assert.deepEqual(
    events.map(({ event, created_at, data }) => ({ event, created_at, data })),
    [
      {
        event: 'support.replied',
        created_at: answeredAt,
        data: {
          request: {
            id: requestId,
            type: 'message',
            status: 'answered',
            reply: 'It is out on the 5th of each month.',
          },
        },
      },
    ],
  );

  const listed = json(await call(h, 'GET', '/api/v1/support/requests', { key })) as Listed;
  assert.deepEqual(listed.requests, [
    {
      id: requestId,
      type: 'message',
      status: 'answered',
      message: 'Where is my statement?',
      release_id: null,
      reply: 'It is out on the 5th of each month.',
      dsps: null,
      created_at: NOW,
      updated_at: answeredAt,
    },
  ]);

  // A second reply replaces the first and is published again: support corrects an answer this way.
  h.clock.advance(1000);
  const corrected = await replyToMessage(h.ctx, requestId, 'It is out on the 5th; this month on the 6th.');
  assert.deepEqual(
    [corrected.status, corrected.reply, corrected.updated_at],
    ['answered', 'It is out on the 5th; this month on the 6th.', h.clock.now().toISOString()],
  );
  const replies = await h.ctx.db
    .selectFrom('events')
    .select(['event', 'data'])
    .where('label_id', '=', label.id)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    replies.map((row) => [row.event, (JSON.parse(row.data) as { request: { reply: string } }).request.reply]),
    [
      ['support.replied', 'It is out on the 5th of each month.'],
      ['support.replied', 'It is out on the 5th; this month on the 6th.'],
    ],
  );
});

test('support list shows the pending requests of real labels, newest first; --status picks others', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const first = await givenMessage(h, key, { message: 'First' });
  h.clock.advance(1000);
  const theirs = await givenMessage(h, other.key, { message: 'Theirs' });
  h.clock.advance(1000);
  const answered = await givenMessage(h, key, { message: 'Answered soon' });
  await replyToMessage(h.ctx, answered, 'Done');

  const pending = await supportQueue(h.ctx, 'pending');
  assert.deepEqual(
    pending.map((request) => [request.id, request.label_id, request.type, request.status, request.message]),
    [
      [theirs, other.label.id, 'message', 'pending', 'Theirs'],
      [first, label.id, 'message', 'pending', 'First'],
    ],
  );
  assert.deepEqual(
    (await supportQueue(h.ctx, 'answered')).map((request) => [request.id, request.reply]),
    [[answered, 'Done']],
  );
  assert.deepEqual(await supportQueue(h.ctx, 'approved'), []);
});

test('a reply is refused for a takedown request, an unknown id and a blank or oversized text; nothing changes', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const live = await givenRelease(h, label.id, { status: 'live', upc: '036000291452' });
  const takedown = json(
    await call(h, 'POST', `/api/v1/releases/${live.id}/takedown-request`, { key, payload: {} }),
  ) as Created;
  const message = await givenMessage(h, key, { message: 'Hello' });

  const cases = [
    [
      takedown.request.id,
      'Thanks',
      'conflict',
      `Support request ${takedown.request.id} is a takedown request: answer it with labeldesk support takedown approve ${takedown.request.id}`,
    ],
    [999_999, 'Thanks', 'not_found', 'Support request 999999 not found'],
    [message, '   ', 'invalid', 'message must not be empty'],
    [message, 'x'.repeat(5001), 'invalid', 'message must be at most 5000 characters'],
  ] as const;
  for (const [id, text, code, error] of cases) {
    await assert.rejects(replyToMessage(h.ctx, id, text), { code, message: error });
  }
  assert.deepEqual(
    (await storedRequests(h)).map((row) => [row.type, row.status, row.reply]),
    [
      ['takedown', 'pending', null],
      ['message', 'pending', null],
    ],
  );
  assert.deepEqual(await h.ctx.db.selectFrom('events').select('event').execute(), []);
});

test('a sandbox key gets the same answers, marked sandbox: true; the request is no ticket for support', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const real = await givenRelease(h, label.id, { title: 'Real One' });
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const copies = json(await call(h, 'GET', '/api/v1/releases', { key: sandboxKey })) as {
    releases: Array<{ id: number }>;
  };
  const copy = copies.releases[0];
  assert.ok(copy);

  const response = await sendMessage(h, sandboxKey, { message: 'Testing the API', release_id: copy.id });
  assert.equal(response.statusCode, 201, response.body);
  assert.equal(response.headers['x-sandbox'], 'true');
  const created = json(response) as Created;
  assert.deepEqual(created, {
    request: { id: created.request.id, type: 'message', status: 'pending', created_at: NOW, sandbox: true },
  });
  const realFromSandbox = await sendMessage(h, sandboxKey, { message: 'Real?', release_id: real.id });
  assert.deepEqual(
    json(realFromSandbox),
    invalid('release_id', 'No release with this id in this label'),
    'the real release is out of the sandbox key’s reach',
  );

  const sandboxList = await call(h, 'GET', '/api/v1/support/requests', { key: sandboxKey });
  assert.equal(sandboxList.headers['x-sandbox'], 'true');
  assert.deepEqual(json(sandboxList), {
    requests: [
      {
        id: created.request.id,
        type: 'message',
        status: 'pending',
        message: 'Testing the API',
        release_id: copy.id,
        reply: null,
        dsps: null,
        created_at: NOW,
        updated_at: NOW,
        sandbox: true,
      },
    ],
    page: 1,
    per_page: 20,
    total: 1,
  });
  const realList = json(await call(h, 'GET', '/api/v1/support/requests', { key })) as Listed;
  assert.deepEqual(realList.requests, [], 'the live key does not see the sandbox’s request');

  // Kept in the sandbox workspace, where support's queue and replies do not look.
  const [stored] = await storedRequests(h);
  assert.notEqual(stored?.label_id, label.id);
  assert.deepEqual(await supportQueue(h.ctx, 'pending'), []);
  await assert.rejects(replyToMessage(h.ctx, created.request.id, 'Hi'), {
    code: 'conflict',
    message: `Support request ${created.request.id} was made with a sandbox key: it is no ticket`,
  });
  assert.deepEqual(await h.ctx.db.selectFrom('events').select('event').execute(), []);
});
