// The console's Team page (issue 20): members and seats, "Invite member", "Remove".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHarness, givenLabel, type Harness } from '../../helpers/harness.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

async function signedInAs(h: Harness, labelId: number, login: string, role: string): Promise<Browser> {
  const { invitePath } = await givenInvitedMember(h, labelId, { login, role, name: `Member ${login}` });
  const browser = new Browser(h);
  await acceptInvite(browser, invitePath);
  return browser;
}

const rowsOf = (body: string) =>
  [...body.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map(
    ([, name, login, role, lastSeen]) => ({ name, login, role, lastSeen }),
  );

test('Team lists members with role and last activity, and seats against the plan', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'label' });
  const other = await givenLabel(h, { name: 'Harbour Lights' });
  await givenInvitedMember(h, other.id, { login: 'stranger', role: 'owner' });
  await givenInvitedMember(h, label.id, { login: 'ana', role: 'editor', name: 'Ana Ruiz' });
  const manager = await signedInAs(h, label.id, 'mira', 'manager');

  const page = await manager.get('/console/team');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<a href="\/console\/team" aria-current="page">Team<\/a>/);
  assert.match(page.body, /<p>2 of 5 seats used\.<\/p>/);
  assert.deepEqual(
    rowsOf(page.body).sort((a, b) => String(a.login).localeCompare(String(b.login))),
    [
      { name: 'Ana Ruiz', login: 'ana', role: 'Editor', lastSeen: 'never' },
      { name: 'Member mira', login: 'mira', role: 'Manager', lastSeen: h.clock.now().toISOString() },
    ],
  );
  assert.doesNotMatch(page.body, /stranger/);
  assert.match(page.body, /<td><span class="muted">You<\/span><\/td>/, 'no Remove for oneself');
  for (const control of [
    '<label>Login <input name="login"',
    '<label>Name <input name="name"',
    '<label>Role <select name="role"',
    '<label>E-mail <input name="email" type="email"',
    '<button type="submit">Invite member</button>',
    '<button type="submit">Remove</button>',
  ]) {
    assert.ok(page.body.includes(control), control);
  }
});

test('a manager invites an accountant: the invite address is shown once and signs the accountant in', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { name: 'Echo Park Records' });
  const manager = await signedInAs(h, label.id, 'mira', 'manager');
  await manager.get('/console/team');

  const invited = await manager.post('/console/team/invite', {
    login: 'ben',
    name: 'Ben Okafor',
    role: 'accountant',
    email: 'ben@example.com',
  });
  assert.equal(invited.statusCode, 201, invited.body);
  assert.match(invited.body, /Ben Okafor was added as Accountant/);
  const address =
    /<label for="invite-address">Invite address<\/label>\s*<span class="copy"><input id="invite-address" readonly value="([^"]+)"/.exec(
      invited.body,
    )?.[1];
  assert.ok(address, 'the invite address in a read-only field');
  assert.match(address, /^https:\/\/api\.labeldesk\.test\/console\/invite\/[A-Za-z0-9_-]{43}$/);
  assert.ok(rowsOf(invited.body).some((row) => row.login === 'ben' && row.role === 'Accountant'));
  assert.doesNotMatch((await manager.get('/console/team')).body, /Invite address/, 'shown once');

  const accountant = new Browser(h);
  await acceptInvite(accountant, new URL(address).pathname);
  const overview = await accountant.get('/console');
  assert.equal(overview.statusCode, 200);
  assert.match(overview.body, /Ben Okafor \(Accountant\)/);
  assert.doesNotMatch(overview.body, /href="\/console\/team"/, 'the nav hides Team from an accountant');
  const team = await accountant.get('/console/team');
  assert.equal(team.statusCode, 403);
  assert.match(team.body, /not available to your role \(Accountant\)/);
  assert.equal(
    (await accountant.post('/console/team/invite', { login: 'x', name: 'X', role: 'viewer' })).statusCode,
    403,
  );
});

test('Invite member refuses as the CLI does: the seat limit (403), a taken login (409), a bad field (400)', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'start' });
  const owner = await signedInAs(h, label.id, 'mira', 'owner');
  await owner.get('/console/team');

  const taken = await owner.post('/console/team/invite', { login: 'mira', name: 'Another', role: 'viewer' });
  assert.equal(taken.statusCode, 409);
  assert.match(taken.body, /<p class="error" role="alert">mira is already a member of this label<\/p>/);
  assert.match(
    taken.body,
    /name="name" autocomplete="off" required value="Another"/,
    'the form keeps its values',
  );

  const blank = await owner.post('/console/team/invite', { login: 'ana', name: '  ', role: 'viewer' });
  assert.equal(blank.statusCode, 400);
  assert.match(blank.body, /<p class="error" role="alert">name is required<\/p>/);

  assert.equal(
    (await owner.post('/console/team/invite', { login: 'ana', name: 'Ana', role: 'viewer' })).statusCode,
    201,
  );
  const full = await owner.post('/console/team/invite', { login: 'ben', name: 'Ben', role: 'viewer' });
  assert.equal(full.statusCode, 403);
  assert.match(full.body, /<p class="error" role="alert">The members limit of the plan is used up<\/p>/);
  assert.match(full.body, /<p>2 of 2 seats used\.<\/p>/);
  assert.doesNotMatch(full.body, /Invite address/);
});

test('a manager may not invite or remove an owner or an administrator', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  await givenInvitedMember(h, label.id, { login: 'olga', role: 'owner' });
  const manager = await signedInAs(h, label.id, 'mira', 'manager');
  const page = await manager.get('/console/team');
  assert.doesNotMatch(page.body, /<option value="(owner|admin)"/);
  assert.match(page.body, /<option value="accountant">Accountant<\/option>/);

  const invite = await manager.post('/console/team/invite', { login: 'x', name: 'X', role: 'admin' });
  assert.equal(invite.statusCode, 403);
  assert.match(invite.body, /Only an owner or an administrator may invite a Administrator\./);
  const remove = await manager.post('/console/team/remove', { login: 'olga' });
  assert.equal(remove.statusCode, 403);
  assert.ok(
    rowsOf(remove.body).some((row) => row.login === 'olga'),
    'still a member',
  );
});

test('Remove frees the seat and ends the member’s sessions; oneself and another label’s member are refused', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h);
  const other = await givenLabel(h, { name: 'Harbour Lights' });
  await givenInvitedMember(h, other.id, { login: 'stranger', role: 'viewer' });
  const owner = await signedInAs(h, label.id, 'mira', 'owner');
  const editor = await signedInAs(h, label.id, 'ana', 'editor');
  assert.equal((await editor.get('/console')).statusCode, 200);

  await owner.get('/console/team');
  const removed = await owner.post('/console/team/remove', { login: 'ana' });
  assert.equal(removed.statusCode, 200);
  assert.match(removed.body, /Member ana \(ana\) was removed; their console sessions have ended\./);
  assert.deepEqual(
    rowsOf(removed.body).map((row) => row.login),
    ['mira'],
  );
  assert.match(removed.body, /<p>1 of 5 seats used\.<\/p>/);
  const after = await editor.get('/console');
  assert.equal(after.statusCode, 303, 'the removed member is signed out');

  const self = await owner.post('/console/team/remove', { login: 'mira' });
  assert.equal(self.statusCode, 400);
  assert.match(self.body, /You cannot remove yourself/);
  const foreign = await owner.post('/console/team/remove', { login: 'stranger' });
  assert.equal(foreign.statusCode, 404);
  assert.match(foreign.body, /Member stranger not found/);

  const forged = await owner.post('/console/team/remove', { login: 'mira' }, null);
  assert.equal(forged.statusCode, 403, 'without the CSRF token');
  assert.match(forged.body, /This form has expired/);
});
