// The console's API keys page (issue 20): list, "Create key" with the CLI's rules, "Revoke".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, call, givenKey, givenLabel, type Harness, json } from '../../helpers/harness.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

async function signedInAs(h: Harness, labelId: number, role: string): Promise<Browser> {
  const { invitePath } = await givenInvitedMember(h, labelId, { login: `${role}-${labelId}`, role });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  return browser;
}

/** Opens the page, as a person would, and posts its create form. */
async function createInConsole(browser: Browser, fields: Array<[string, string]>) {
  assert.equal((await browser.get('/console/keys')).statusCode, 200);
  return browser.post('/console/keys', fields);
}

function newKeyOf(body: string): string {
  const key =
    /<label for="new-key">New API key<\/label>\s*<span class="copy"><input id="new-key" readonly value="([^"]+)"/.exec(
      body,
    )?.[1];
  assert.ok(key, 'the new key is shown in the "New API key" field');
  return key;
}

function rowOf(body: string, prefix: string): string {
  const row = new RegExp(`<tr><td id="key-${prefix}">[\\s\\S]*?</tr>`).exec(body)?.[0];
  assert.ok(row, `a row for ${prefix}`);
  return row;
}

function errorOf(body: string): string | undefined {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
}

test('a key created in the console works on the API with exactly its scopes, is listed, and stops at "Revoke"', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'label', contractSigned: true });
  const owner = await signedInAs(h, label.id, 'owner');

  const created = await createInConsole(owner, [
    ['scopes', 'catalog:read'],
    ['scopes', 'stats:read'],
  ]);
  assert.equal(created.statusCode, 200, created.body);
  assert.match(created.body, /it is not shown again/);
  assert.match(
    created.body,
    /<button type="button" data-copy="new-key" hidden>Copy key<\/button> <span id="new-key-copied" role="status" class="muted"><\/span>/,
    'a "Copy key" button, which the script shows (without it, the field is there to select)',
  );
  const key = newKeyOf(created.body);
  assert.match(key, /^svc_[A-Za-z0-9]{40}$/);

  const me = await call(h, 'GET', '/api/v1/me', { key });
  assert.equal(me.statusCode, 200, me.body);
  assert.deepEqual((json(me) as { key: { scopes: string[] } }).key.scopes, ['catalog:read', 'stats:read']);
  assert.equal((await call(h, 'GET', '/api/v1/artists', { key })).statusCode, 200);
  const outside = await call(h, 'GET', '/api/v1/finance/summary', { key });
  assert.equal(outside.statusCode, 403);
  assert.equal((json(outside) as { code: string }).code, 'forbidden');

  const prefix = key.slice(0, 12);
  const listed = await owner.get('/console/keys');
  assert.doesNotMatch(listed.body, new RegExp(key), 'the key itself is shown only once');
  const row = rowOf(listed.body, prefix);
  for (const cell of ['<td>catalog:read, stats:read</td>', '<td>live</td>', 'any address', '<td>active</td>'])
    assert.ok(row.includes(cell), cell);
  assert.match(row, /<button type="submit" aria-describedby="key-[^"]+">Revoke<\/button>/);

  const revoked = await owner.post(`/console/keys/${prefix}/revoke`, {});
  assert.equal(revoked.statusCode, 303);
  assert.equal(revoked.headers.location, '/console/keys');
  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 401);
  const after = rowOf((await owner.get('/console/keys')).body, prefix);
  assert.match(after, /revoked <time/);
  assert.doesNotMatch(after, />Revoke</, 'no "Revoke" for a revoked key');
});

test('the allow-list is checked as the CLI checks it, and a sandbox key is a svc_test_ key', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'label', contractSigned: true });
  const owner = await signedInAs(h, label.id, 'owner');

  const refused = await createInConsole(owner, [
    ['scopes', 'catalog:read'],
    ['allow_ips', '198.51.100.0/24\nnot-an-address'],
  ]);
  assert.equal(refused.statusCode, 400);
  assert.equal(
    errorOf(refused.body),
    '&quot;not-an-address&quot; is not an IPv4 address, IPv6 address or CIDR range',
  );
  assert.match(
    refused.body,
    /<textarea name="allow_ips"[^>]*>198\.51\.100\.0\/24\nnot-an-address<\/textarea>/,
  );
  assert.match(refused.body, /value="catalog:read" checked/, 'the form keeps what was chosen');

  const created = await createInConsole(owner, [
    ['scopes', 'catalog:read'],
    ['allow_ips', '198.51.100.0/24, 2001:db8::1'],
    ['sandbox', 'on'],
  ]);
  assert.equal(created.statusCode, 200, created.body);
  const key = newKeyOf(created.body);
  assert.match(key, /^svc_test_/);
  const row = rowOf(created.body, key.slice(0, 17));
  assert.ok(row.includes('<td>sandbox</td>'));
  assert.ok(row.includes('<td>198.51.100.0/24, 2001:db8::1</td>'));
  const elsewhere = await call(h, 'GET', '/api/v1/me', { key, remoteAddress: '203.0.113.9' });
  assert.equal(elsewhere.statusCode, 403);
  assert.equal((json(elsewhere) as { code: string }).code, 'ip_not_allowed');
  assert.equal((await call(h, 'GET', '/api/v1/me', { key, remoteAddress: '198.51.100.4' })).statusCode, 200);

  const none = await createInConsole(owner, []);
  assert.equal(none.statusCode, 400);
  assert.match(errorOf(none.body) ?? '', /at least one scope/);
});

test("the plan's scopes are offered, and its key limit refuses with the plan_limit message", async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'start', contractSigned: true });
  const owner = await signedInAs(h, label.id, 'owner');

  const page = await owner.get('/console/keys');
  const offered = [...page.body.matchAll(/name="scopes" value="([^"]+)"/g)].map((match) => match[1]);
  assert.deepEqual(offered, ['catalog:read', 'stats:read', 'links:read', 'links:write']);

  const outsidePlan = await createInConsole(owner, [['scopes', 'finance:read']]);
  assert.equal(outsidePlan.statusCode, 403);
  assert.match(errorOf(outsidePlan.body) ?? '', /The finance:read scope needs the Label plan or above/);

  assert.equal((await createInConsole(owner, [['scopes', 'catalog:read']])).statusCode, 200);
  const limited = await createInConsole(owner, [['scopes', 'catalog:read']]);
  assert.equal(limited.statusCode, 403);
  assert.equal(errorOf(limited.body), 'The api_keys limit of the plan is used up');
  assert.doesNotMatch(limited.body, /New API key/);
});

test('a role without settings.manage gets the 403 page and no "API keys" link', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'label', contractSigned: true });
  const key = await givenKey(h, label.id);
  const prefix = key.slice(0, 12);
  const owner = await signedInAs(h, label.id, 'owner');
  assert.match((await owner.get('/console')).body, /<a href="\/console\/keys">API keys<\/a>/);

  const viewer = await signedInAs(h, label.id, 'viewer');
  const overview = await viewer.get('/console');
  assert.doesNotMatch(overview.body, /href="\/console\/keys"/);
  const page = await viewer.get('/console/keys');
  assert.equal(page.statusCode, 403);
  assert.match(page.body, /not available to your role \(Viewer\)/);
  assert.doesNotMatch(page.body, new RegExp(prefix));

  assert.equal((await viewer.post('/console/keys', [['scopes', 'catalog:read']])).statusCode, 403);
  assert.equal((await viewer.post(`/console/keys/${prefix}/revoke`, {})).statusCode, 403);
  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 200, 'the key still works');
  assert.doesNotMatch((await owner.get('/console/keys')).body, /New API key/, 'the viewer created none');
});

test("another label's key prefix answers a 404 page and stays active; its keys are not listed", async (t) => {
  const h = await buildHarness(t);
  const ours = await givenLabel(h, { name: 'Ours', plan: 'label', contractSigned: true });
  const theirs = await givenLabel(h, { name: 'Theirs', plan: 'label', contractSigned: true });
  const theirKey = await givenKey(h, theirs.id);
  const prefix = theirKey.slice(0, 12);
  const owner = await signedInAs(h, ours.id, 'owner');

  const page = await owner.get('/console/keys');
  assert.equal(page.statusCode, 200);
  assert.doesNotMatch(page.body, new RegExp(prefix));
  assert.match(page.body, /No keys yet\./);

  const refused = await owner.post(`/console/keys/${prefix}/revoke`, {});
  assert.equal(refused.statusCode, 404);
  assert.match(refused.body, /<title>Not found · Labeldesk console<\/title>/);
  assert.match(refused.body, /Key not found/);
  assert.equal((await call(h, 'GET', '/api/v1/me', { key: theirKey })).statusCode, 200);
});

test('"Last used" is "never" until the key’s first request, then its minute, moving at most once a minute', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'label', contractSigned: true });
  const owner = await signedInAs(h, label.id, 'owner');
  const key = newKeyOf((await createInConsole(owner, [['scopes', 'catalog:read']])).body);
  const prefix = key.slice(0, 12);
  const lastUsed = async () => {
    const cells = rowOf((await owner.get('/console/keys')).body, prefix).match(/<td>[\s\S]*?<\/td>/g);
    return cells?.[4];
  };
  assert.match((await owner.get('/console/keys')).body, /<th>Last used \(UTC\)<\/th>/);
  assert.equal(await lastUsed(), '<td><span class="muted">never</span></td>');

  const versionOfKey = async () =>
    (
      await h.ctx.db
        .selectFrom('cache_versions')
        .select('version')
        .where('subject', 'like', 'key:%')
        .execute()
    )
      .map((row) => row.version)
      .join();
  const versionsBefore = await versionOfKey();
  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 200);
  assert.equal(
    await lastUsed(),
    '<td><time datetime="2026-03-02T10:00:00.000Z">2026-03-02 10:00</time></td>',
  );
  assert.equal(
    await versionOfKey(),
    versionsBefore,
    'a recorded use is no change to the key: its cache stays',
  );

  h.clock.advance(59_000);
  assert.equal((await call(h, 'GET', '/api/v1/me', { key })).statusCode, 200);
  assert.match(
    String(await lastUsed()),
    /datetime="2026-03-02T10:00:00.000Z"/,
    'not rewritten within the minute',
  );
  h.clock.advance(1_000);
  assert.equal((await call(h, 'GET', '/api/v1/artists', { key })).statusCode, 200);
  assert.equal(
    await lastUsed(),
    '<td><time datetime="2026-03-02T10:01:00.000Z">2026-03-02 10:01</time></td>',
  );
});
