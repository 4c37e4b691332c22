// The console's Support page (issue 20): requests with support's replies, and a new message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replyToMessage } from '../../../src/modules/support/index.ts';
import { buildHarness, call, givenCaller, givenLabel, type Harness, json } from '../../helpers/harness.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

async function signedInAs(h: Harness, labelId: number, login: string, role: string): Promise<Browser> {
  const { invitePath } = await givenInvitedMember(h, labelId, { login, role });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  return browser;
}

const requestRows = (body: string) =>
  [
    ...body.matchAll(
      /<tr><td>(\d+)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>[^<]*<\/td><td class="text">([^<]*)<\/td><td class="text">(.*?)<\/td><\/tr>/g,
    ),
  ].map(([, id, type, status, message, reply]) => ({ id: Number(id), type, status, message, reply }));

test('a message sent from the console is in the API’s list, and support’s reply shows on the page', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const other = await givenCaller(h);
  const theirs = json(
    await call(h, 'POST', '/api/v1/support', { key: other.key, payload: { message: 'Their question' } }),
  ) as { request: { id: number } };
  const manager = await signedInAs(h, label.id, 'mira', 'manager');

  const empty = await manager.get('/console/support');
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /<a href="\/console\/support" aria-current="page">Support<\/a>/);
  assert.match(empty.body, /No requests yet\./);
  assert.ok(empty.body.includes('<label>Message <textarea name="message"'));

  const sent = await manager.post('/console/support', {
    message: '  The cover of <Night Drive> is wrong.\nCan you check?  ',
  });
  assert.equal(sent.statusCode, 303, sent.body);
  assert.equal(sent.headers.location, '/console/support');

  const listed = json(await call(h, 'GET', '/api/v1/support/requests', { key })) as {
    requests: Array<{ id: number; type: string; status: string; message: string; reply: string | null }>;
  };
  assert.equal(listed.requests.length, 1);
  const [request] = listed.requests;
  assert.ok(request);
  assert.deepEqual(
    { type: request.type, status: request.status, message: request.message, reply: request.reply },
    {
      type: 'message',
      status: 'pending',
      message: 'The cover of <Night Drive> is wrong.\nCan you check?',
      reply: null,
    },
  );

  const pending = await manager.get('/console/support');
  assert.deepEqual(requestRows(pending.body), [
    {
      id: request.id,
      type: 'message',
      status: 'pending',
      message: 'The cover of &lt;Night Drive&gt; is wrong.\nCan you check?',
      reply: '<span class="muted">No reply yet</span>',
    },
  ]);
  assert.doesNotMatch(pending.body, /Their question/);

  await replyToMessage(h.ctx, request.id, 'Fixed: the new cover is live on every platform.');
  await replyToMessage(h.ctx, theirs.request.id, 'Their answer');
  const answered = await manager.get('/console/support');
  assert.deepEqual(
    requestRows(answered.body).map(({ status, reply }) => ({ status, reply })),
    [{ status: 'answered', reply: 'Fixed: the new cover is live on every platform.' }],
  );
  assert.doesNotMatch(answered.body, /Their answer/);
});

test('a blank message is refused with the service’s message (400); roles without support.write get 403', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const owner = await signedInAs(h, label.id, 'mira', 'owner');
  await owner.get('/console/support');
  const blank = await owner.post('/console/support', { message: '   ' });
  assert.equal(blank.statusCode, 400);
  assert.match(blank.body, /<p class="error" role="alert">message must not be empty<\/p>/);
  assert.match(blank.body, /No requests yet\./);

  for (const role of ['accountant', 'editor', 'viewer']) {
    const browser = await signedInAs(h, label.id, role, role);
    assert.doesNotMatch((await browser.get('/console')).body, /href="\/console\/support"/);
    assert.equal((await browser.get('/console/support')).statusCode, 403, role);
    assert.equal((await browser.post('/console/support', { message: 'Hello' })).statusCode, 403, role);
  }
});
