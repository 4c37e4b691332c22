// The label console in Chromium against `labeldesk serve` (issue 20): an owner accepts an invite and
// signs in, invites an accountant who requests a withdrawal, a viewer sees only what a viewer may;
// axe-core finds no serious or critical violation on any page, in a light or a dark system theme, and
// full-page screenshots of every page go to test-output/ for a person to look at.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { cliJson, send } from '../../helpers/installation.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import {
  type Cleanups,
  chromiumMissing,
  launchChromium,
  type ServedInstallation,
  servedInstallation,
} from '../smart-links/link-pages.browser.fixtures.ts';

const OUTPUT_DIR = fileURLToPath(new URL('../../../test-output/', import.meta.url));
const PASSWORD = 'a long enough password';
const NAV = ['Overview', 'Catalog', 'API keys', 'Webhooks', 'Smart links', 'Finance', 'Team', 'Support'];

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

/** Checks the page with axe in both system themes and keeps a screenshot of each. */
async function inspect(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await seriousViolations(page), [], `${name} (${colorScheme})`);
    await page.screenshot({ path: join(OUTPUT_DIR, `console-${name}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function navNames(page: Page): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts();
}

async function acceptInvite(browser: Browser, inviteUrl: string): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  // A step that cannot happen fails the test with its reason, not the suite's timeout.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.goto(inviteUrl);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await Promise.all([
    page.waitForURL(/\/console$/),
    page.getByRole('button', { name: 'Set password and sign in' }).click(),
  ]);
  return page;
}

async function addMember(served: ServedInstallation, login: string, role: string): Promise<string> {
  const added = await cliJson<{ invite_url: string }>(served.install, [
    'member',
    'add',
    '--label',
    '1',
    '--login',
    login,
    '--name',
    `Member ${login}`,
    '--role',
    role,
  ]);
  // The command line runs without the server's BASE_URL (its port is the test's): the same path there.
  return new URL(new URL(added.invite_url).pathname, served.origin).href;
}

/** A live release with a UPC, and a royalty statement that pays for it: the label has a balance. */
async function givenBalance(served: ServedInstallation): Promise<void> {
  const { artist } = await served.api.expect<{ artist: { id: number } }>(201, 'POST', '/artists', {
    name: 'Mira Vale',
  });
  await served.api.expect(201, 'POST', '/releases', {
    artist_id: artist.id,
    type: 'single',
    title: 'Night Drive',
    genre: 'Pop',
    release_date: '2026-12-01',
    upc: '5012345678900',
  });
  const file = join(served.install.dataDir, 'statement.csv');
  writeFileSync(
    file,
    'period,upc,isrc,dsp,country,quantity,revenue\n2026-01,5012345678900,,spotify,DE,100000,400.00\n',
  );
  await cliJson(served.install, ['finance', 'import', file]);
}

test('the console in Chromium: owner, accountant and viewer journeys, accessible in both themes', {
  skip: chromiumMissing() ?? false,
}, async (t) => {
  const cleanups: Cleanups = [];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  // A real HTTPS receiver on this machine: the server is told to trust its certificate and address.
  const receiver = await startReceiver(t);
  const receiverCa = join(mkdtempSync(join(tmpdir(), 'console-receiver-')), 'ca.pem');
  writeFileSync(receiverCa, receiver.ca);
  const served = await servedInstallation('console_browser', cleanups, {
    NODE_EXTRA_CA_CERTS: receiverCa,
    WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32',
  });
  const browser = await launchChromium(cleanups);
  await givenBalance(served);

  // The owner: an invite, a password, the console; then signing out and in again.
  const owner = await acceptInvite(browser, await addMember(served, 'owner', 'owner'));
  await inspect(owner, 'overview');
  assert.deepEqual(await navNames(owner), NAV, 'an owner sees every page');
  await Promise.all([
    owner.waitForURL(/\/console\/sign-in$/),
    owner.getByRole('button', { name: 'Sign out' }).click(),
  ]);
  await inspect(owner, 'sign-in');
  await owner.getByLabel('Login').fill('owner');
  await owner.getByLabel('Password').fill(PASSWORD);
  await Promise.all([owner.waitForURL(/\/console$/), owner.getByRole('button', { name: 'Sign in' }).click()]);
  for (const [name, path] of [
    ['Catalog', '/console/catalog'],
    ['Smart links', '/console/smart-links'],
    ['Finance', '/console/finance'],
    ['Support', '/console/support'],
  ] as const) {
    await Promise.all([
      owner.waitForURL(new RegExp(`${path}$`)),
      owner.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click(),
    ]);
    await inspect(owner, name.toLowerCase().replace(' ', '-'));
  }

  // The owner creates a key with two scopes, the API honours exactly those, and "Revoke" ends it.
  await owner.goto(`${served.origin}/console/keys`);
  await inspect(owner, 'keys');
  await owner.getByLabel('catalog:read').check();
  await owner.getByLabel('stats:read').check();
  await Promise.all([
    owner.waitForLoadState('load'),
    owner.getByRole('button', { name: 'Create key' }).click(),
  ]);
  const key = await owner.getByLabel('New API key').inputValue();
  assert.match(key, /^svc_/);
  await owner.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.origin });
  await owner.getByRole('button', { name: 'Copy key' }).click();
  await owner.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
  assert.equal(await owner.evaluate(() => navigator.clipboard.readText()), key, '"Copy key" copies the key');
  await inspect(owner, 'key-created');
  const withKey = (path: string) =>
    send(
      'GET',
      { protocol: 'https', port: Number(new URL(served.origin).port), path: `/api/v1${path}` },
      {
        headers: { authorization: `Bearer ${key}` },
        ca: served.ca,
      },
    );
  assert.equal((await withKey('/releases')).status, 200, 'a route within the scopes');
  assert.equal((await withKey('/finance/summary')).status, 403, 'a route outside them');
  await owner.goto(`${served.origin}/console/keys`);
  const prefix = key.slice(0, 12);
  await Promise.all([
    owner.waitForLoadState('load'),
    owner
      .getByRole('row', { name: new RegExp(prefix) })
      .getByRole('button', { name: 'Revoke' })
      .click(),
  ]);
  assert.equal((await withKey('/releases')).status, 401, 'revoked');
  // A webhook added in the console, its secret shown once, a test delivery seen in its log.
  await owner.goto(`${served.origin}/console/webhooks`);
  await inspect(owner, 'webhooks');
  await owner.getByLabel('Address (https)').fill(`${receiver.origin}/hooks/labeldesk`);
  await owner.getByRole('checkbox', { name: /release\.approved/ }).check();
  await Promise.all([
    owner.waitForLoadState('load'),
    owner.getByRole('button', { name: 'Add webhook' }).click(),
  ]);
  assert.match(await owner.getByLabel('Webhook secret').inputValue(), /^svcwh_/);
  await owner.goto(`${served.origin}/console/webhooks`);
  await Promise.all([
    owner.waitForLoadState('load'),
    owner.getByRole('button', { name: 'Send test' }).click(),
  ]);
  await receiver.waitFor(1, 10_000);
  await owner.goto(`${served.origin}/console/webhooks`);
  await Promise.all([
    owner.waitForURL(/\/console\/webhooks\/\d+$/),
    owner.getByRole('link', { name: `${receiver.origin}/hooks/labeldesk` }).click(),
  ]);
  await owner.getByRole('cell', { name: '200' }).first().waitFor();
  await inspect(owner, 'webhook-log');

  // The owner invites an accountant on the Team page; the address is shown once.
  await owner.goto(`${served.origin}/console/team`);
  await inspect(owner, 'team');
  await owner.getByLabel('Login').fill('accounts');
  await owner.getByLabel('Name').fill('Ada Accounts');
  await owner.getByLabel('Role').selectOption('accountant');
  await Promise.all([
    owner.waitForLoadState('load'),
    owner.getByRole('button', { name: 'Invite member' }).click(),
  ]);
  const inviteUrl = await owner.getByLabel('Invite address').inputValue();
  assert.match(inviteUrl, /\/console\/invite\/[A-Za-z0-9_-]{43}$/);

  // The accountant: Finance, a withdrawal that the API then lists; no Team, a 403 page if tried.
  const accountant = await acceptInvite(browser, inviteUrl);
  assert.deepEqual(await navNames(accountant), ['Overview', 'Catalog', 'Smart links', 'Finance']);
  await accountant.goto(`${served.origin}/console/finance`);
  await accountant.getByLabel('Amount').fill('100.00');
  await Promise.all([
    accountant.waitForLoadState('load'),
    accountant.getByRole('button', { name: 'Request withdrawal' }).click(),
  ]);
  const { withdrawals } = await served.api.expect<{ withdrawals: Array<{ amount: string; status: string }> }>(
    200,
    'GET',
    '/finance/withdrawals',
  );
  assert.deepEqual(
    withdrawals.map(({ amount, status }) => ({ amount, status })),
    [{ amount: 100, status: 'pending' }],
  );
  await inspect(accountant, 'finance-requested');
  for (const path of ['/console/keys', '/console/team']) {
    assert.equal((await accountant.goto(`${served.origin}${path}`))?.status(), 403, path);
  }
  await inspect(accountant, 'forbidden');

  // A viewer sees the catalog and the smart links, and nothing of money, keys or the team.
  const viewer = await acceptInvite(browser, await addMember(served, 'viewer', 'viewer'));
  assert.deepEqual(await navNames(viewer), ['Overview', 'Catalog', 'Smart links']);
  for (const path of ['/console/finance', '/console/team', '/console/support']) {
    assert.equal((await viewer.goto(`${served.origin}${path}`))?.status(), 403, path);
  }
  await viewer.goto(`${served.origin}/console/catalog`);
  const release = viewer.getByRole('link', { name: 'Night Drive' });
  await Promise.all([viewer.waitForURL(/\/console\/catalog\/\d+$/), release.click()]);
  await inspect(viewer, 'release');
});
