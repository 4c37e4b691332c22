// Sign-in to the label console (issue 20): invite addresses, passwords, sessions, limits, CSRF.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { removeMember } from '../../../src/modules/team/index.ts';
import { buildHarness, call, givenCaller, givenLabel, json } from '../../helpers/harness.ts';
import { acceptInvite, Browser, givenInvitedMember, PASSWORD } from './console.fixtures.ts';

const HOUR_MS = 60 * 60 * 1000;

test('an invite address lets the member choose a password, signs them in once, and is then spent', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { name: 'Echo Park Records' });
  const { invitePath } = await givenInvitedMember(h, label.id, {
    login: 'mira',
    role: 'owner',
    name: 'Mira Vale',
  });
  assert.match(invitePath, /^\/console\/invite\/[A-Za-z0-9_-]{43}$/);
  const browser = new Browser(h);

  const form = await browser.get(invitePath);
  assert.equal(form.statusCode, 200);
  assert.equal(form.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(form.body, /Welcome, Mira Vale\. Your login is <strong>mira<\/strong>/);

  for (const [fields, message] of [
    [{ password: 'short one', confirmation: 'short one' }, 'at least 12 characters'],
    [{ password: PASSWORD, confirmation: `${PASSWORD}!` }, 'The two passwords differ.'],
  ] as const) {
    const refused = await browser.post(invitePath, fields);
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.body.includes(message), message);
    assert.equal(browser.cookies.has('labeldesk_session'), false, 'no session for a refused password');
  }

  const accepted = await browser.post(invitePath, { password: PASSWORD, confirmation: PASSWORD });
  assert.equal(accepted.statusCode, 303);
  assert.equal(accepted.headers.location, '/console');
  const session = accepted.cookies.find((cookie) => cookie.name === 'labeldesk_session');
  assert.ok(session, 'a session cookie');
  assert.deepEqual(
    { httpOnly: session.httpOnly, secure: session.secure, sameSite: session.sameSite, path: session.path },
    { httpOnly: true, secure: true, sameSite: 'Lax', path: '/console' },
  );

  const overview = await browser.get('/console');
  assert.equal(overview.statusCode, 200);
  assert.match(overview.body, /<title>Overview · Labeldesk console<\/title>/);
  assert.match(overview.body, /Echo Park Records/);
  assert.match(overview.body, /<a href="\/console" aria-current="page">Overview<\/a>/);
  assert.match(overview.body, /<button type="submit" class="link-button">Sign out<\/button>/);

  const again = await new Browser(h).get(invitePath);
  assert.equal(again.statusCode, 404, 'an invite address works once');
  assert.match(again.body, /has been used or has expired/);
});

test('an invite address expires after 7 days', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const { invitePath } = await givenInvitedMember(h, label.id, { login: 'ana', role: 'viewer' });
  h.clock.advance(7 * 24 * HOUR_MS);
  assert.equal((await new Browser(h).get(invitePath)).statusCode, 404);
});

test('sign-in: one message for an unknown login and a wrong password; the session is new at every sign-in', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const { invitePath } = await givenInvitedMember(h, label.id, { login: 'mira', role: 'owner' });
  const invited = new Browser(h);
  await acceptInvite(invited, invitePath);
  const inviteSession = invited.cookies.get('labeldesk_session');

  const browser = new Browser(h);
  const page = await browser.get('/console/sign-in');
  assert.equal(page.statusCode, 200);
  for (const name of [
    '<label>Login <input name="login"',
    '<label>Password <input name="password" type="password"',
    '<button type="submit">Sign in</button>',
  ]) {
    assert.ok(page.body.includes(name), name);
  }
  const wrong = await browser.post('/console/sign-in', {
    login: 'mira',
    password: 'not the password at all',
  });
  const unknown = await browser.post('/console/sign-in', {
    login: 'nobody',
    password: 'not the password at all',
  });
  for (const refused of [wrong, unknown]) {
    assert.equal(refused.statusCode, 401);
    assert.match(refused.body, /<p class="error" role="alert">The login or the password is not right\.<\/p>/);
  }

  const signedIn = await browser.post('/console/sign-in', { login: 'mira', password: PASSWORD });
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  assert.equal(signedIn.headers.location, '/console');
  const first = browser.cookies.get('labeldesk_session');
  assert.ok(first && first !== inviteSession);
  assert.equal((await browser.get('/console')).statusCode, 200);

  await browser.get('/console/sign-in');
  assert.equal(
    (await browser.post('/console/sign-in', { login: 'mira', password: PASSWORD })).statusCode,
    303,
  );
  const second = browser.cookies.get('labeldesk_session');
  assert.ok(second && second !== first, 'rotated at sign-in');
  const stale = new Browser(h);
  stale.cookies.set('labeldesk_session', first);
  const old = await stale.get('/console');
  assert.equal(old.statusCode, 303, 'the session the browser had before is ended');
  assert.equal(old.headers.location, '/console/sign-in');
  assert.equal((await invited.get('/console')).statusCode, 200, 'other browsers stay signed in');
});

test('without a session every console page sends the browser to sign in', async (t) => {
  const h = await buildHarness(t);
  const response = await new Browser(h).get('/console');
  assert.equal(response.statusCode, 303);
  assert.equal(response.headers.location, '/console/sign-in');
  const forged = new Browser(h);
  forged.cookies.set('labeldesk_session', 'A'.repeat(43));
  assert.equal((await forged.get('/console')).statusCode, 303);
});

test('a form posted without its CSRF token, or with another browser’s, is refused', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const { invitePath } = await givenInvitedMember(h, label.id, { login: 'mira', role: 'owner' });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  await browser.get('/console');

  const withoutToken = await browser.post('/console/sign-out', {}, null);
  assert.equal(withoutToken.statusCode, 403);
  assert.match(withoutToken.body, /This form has expired or did not come from this console/);
  const other = new Browser(h);
  await other.get('/console/sign-in');
  const foreign = await browser.post('/console/sign-out', {}, other.csrfToken);
  assert.equal(foreign.statusCode, 403);
  assert.equal((await browser.get('/console')).statusCode, 200, 'still signed in');

  const signIn = await other.post('/console/sign-in', { login: 'mira', password: PASSWORD }, null);
  assert.equal(signIn.statusCode, 403, 'sign-in too');
});

test('"Sign out" and `member remove` end sessions at once; a session idle for 12 hours has ended', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const owner = await givenInvitedMember(h, label.id, { login: 'mira', role: 'owner' });
  const browser = new Browser(h);
  await acceptInvite(browser, owner.invitePath);
  const session = browser.cookies.get('labeldesk_session') ?? '';

  await browser.get('/console');
  const out = await browser.post('/console/sign-out', {});
  assert.equal(out.statusCode, 303);
  assert.equal(out.headers.location, '/console/sign-in');
  assert.equal(browser.cookies.has('labeldesk_session'), false, 'the cookie is cleared');
  const replayed = new Browser(h);
  replayed.cookies.set('labeldesk_session', session);
  assert.equal((await replayed.get('/console')).statusCode, 303, 'the old cookie is useless');

  const viewer = await givenInvitedMember(h, label.id, { login: 'ana', role: 'viewer' });
  const removed = new Browser(h);
  await acceptInvite(removed, viewer.invitePath);
  assert.equal((await removed.get('/console')).statusCode, 200);
  await removeMember(h.ctx, label.id, 'ana');
  assert.equal((await removed.get('/console')).statusCode, 303, 'removed: signed out at once');

  const idle = new Browser(h);
  await idle.get('/console/sign-in');
  assert.equal((await idle.post('/console/sign-in', { login: 'mira', password: PASSWORD })).statusCode, 303);
  h.clock.advance(12 * HOUR_MS - 60_000);
  assert.equal((await idle.get('/console')).statusCode, 200, 'used within 12 hours');
  h.clock.advance(12 * HOUR_MS - 60_000);
  assert.equal((await idle.get('/console')).statusCode, 200, '12 hours counted from the last use');
  h.clock.advance(12 * HOUR_MS);
  assert.equal((await idle.get('/console')).statusCode, 303, 'idle for 12 hours');
});

test('console activity moves `last_seen_at` in GET /team', async (t) => {
  const h = await buildHarness(t);
  const { label, key } = await givenCaller(h);
  const { invitePath } = await givenInvitedMember(h, label.id, { login: 'mira', role: 'owner' });
  const lastSeen = async () => {
    const team = json(await call(h, 'GET', '/api/v1/team', { key })) as {
      members: Array<{ login: string; last_seen_at: string | null }>;
    };
    return team.members.find((member) => member.login === 'mira')?.last_seen_at;
  };
  assert.equal(await lastSeen(), null);
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  await browser.get('/console');
  assert.equal(await lastSeen(), h.clock.now().toISOString());
  h.clock.advance(HOUR_MS);
  await browser.get('/console');
  assert.equal(await lastSeen(), h.clock.now().toISOString());
});

test('the 11th failed sign-in in 15 minutes is refused with 429, per address and per login', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const { invitePath } = await givenInvitedMember(h, label.id, { login: 'mira', role: 'owner' });
  await acceptInvite(new Browser(h), invitePath);

  const attacker = new Browser(h, '198.51.100.9');
  await attacker.get('/console/sign-in');
  for (let i = 0; i < 10; i++) {
    assert.equal(
      (await attacker.post('/console/sign-in', { login: 'mira', password: `guess number ${i}` })).statusCode,
      401,
    );
  }
  const limited = await attacker.post('/console/sign-in', { login: 'mira', password: PASSWORD });
  assert.equal(limited.statusCode, 429, 'even with the right password');
  assert.equal(limited.headers['retry-after'], '900');
  assert.match(limited.body, /Too many attempts/);

  const elsewhere = new Browser(h, '192.0.2.50');
  await elsewhere.get('/console/sign-in');
  assert.equal(
    (await elsewhere.post('/console/sign-in', { login: 'mira', password: PASSWORD })).statusCode,
    429,
    'the login is limited from any address',
  );
  assert.equal(
    (await attacker.post('/console/sign-in', { login: 'someone-else', password: PASSWORD })).statusCode,
    429,
    'the address is limited for any login',
  );

  h.clock.advance(15 * 60_000 + 1);
  assert.equal(
    (await elsewhere.post('/console/sign-in', { login: 'mira', password: PASSWORD })).statusCode,
    303,
    'after 15 minutes',
  );
});

test('console pages carry a strict Content-Security-Policy and no other label’s data', async (t) => {
  const h = await buildHarness(t);
  const mine = await givenLabel(h, { name: 'Echo Park Records' });
  const theirs = await givenLabel(h, { name: 'Harbour Lights' });
  const { invitePath } = await givenInvitedMember(h, mine.id, { login: 'mira', role: 'viewer' });
  await givenInvitedMember(h, theirs.id, { login: 'mira', role: 'owner' });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  const page = await browser.get('/console');
  assert.equal(page.statusCode, 200);
  const policy = String(page.headers['content-security-policy']);
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /style-src 'sha256-[A-Za-z0-9+/]+=*'/);
  const script = /<script>([\s\S]*?)<\/script>/.exec(page.body)?.[1] ?? '';
  assert.ok(
    policy.includes(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`),
    'the one inline script runs by its hash, and nothing else does',
  );
  assert.match(policy, /form-action 'self'/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
  assert.ok(page.body.includes('Echo Park Records') && !page.body.includes('Harbour Lights'));
});
