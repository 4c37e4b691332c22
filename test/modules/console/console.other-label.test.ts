// No console page shows or changes another label's data (issue 20): every console address that names an
// object, read from the app's own routes, is tried with the ids of another label's objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { givenArtist, givenRelease } from '../../helpers/catalog.ts';
import { call, givenKey, givenLabel, type Harness, json } from '../../helpers/harness.ts';
import { givenWebhook, HOOK_URL, harness, liveWorkspace, publishEvent } from '../../helpers/webhooks.ts';
import { givenLink } from '../smart-links/link-pages.fixtures.ts';
import { acceptInvite, Browser, givenInvitedMember } from './console.fixtures.ts';

/** The objects a console address can name, by kind. */
type Kind = 'release' | 'smartLink' | 'webhook' | 'keyPrefix' | 'memberId' | 'memberLogin' | 'supportRequest';

/**
 * Which kind of object a parameter names, by where its address starts and the parameter's name. A
 * console address with a parameter not listed here fails the test: give the labels such an object in
 * `givenLabelWithObjects` and list it.
 */
const PARAM_KINDS: ReadonlyArray<{ prefix: string; param: string; kind: Kind }> = [
  { prefix: '/console/catalog/', param: 'id', kind: 'release' },
  { prefix: '/console/smart-links/', param: 'id', kind: 'smartLink' },
  { prefix: '/console/webhooks/', param: 'id', kind: 'webhook' },
  { prefix: '/console/keys/', param: 'prefix', kind: 'keyPrefix' },
  // No address names these yet (the Team and Support pages post logins and messages in forms).
  { prefix: '/console/team/', param: 'id', kind: 'memberId' },
  { prefix: '/console/team/', param: 'login', kind: 'memberLogin' },
  { prefix: '/console/support/', param: 'id', kind: 'supportRequest' },
];

/**
 * The invite address's parameter is a secret token that signs a new member in, not an object of a
 * label; used and unknown tokens are console.sign-in.test.ts's subject.
 */
const NOT_OBJECT_ADDRESSES = new Set(['/console/invite/:token']);

/** The pages without a parameter that the issue names: the route list must have them all. */
const LIST_PAGES = [
  '/console',
  '/console/catalog',
  '/console/keys',
  '/console/webhooks',
  '/console/smart-links',
  '/console/finance',
  '/console/team',
  '/console/support',
];

/**
 * Posted to every form address: each form reads the fields it knows and ignores the rest, so a form
 * added later gets plausible values too (events to set, an event to send again, an address...).
 */
function formFields(other: LabelWithObjects): Array<[string, string]> {
  return [
    ['events', 'release.approved'],
    ['events', 'presave.signup'],
    ['event_id', String(other.eventId)],
    ['since', '2026-03-02T09:00'],
    ['url', `${HOOK_URL}/changed`],
    ['login', other.ids.memberLogin],
    ['name', 'Changed'],
    ['role', 'viewer'],
    ['message', 'Changed'],
  ];
}

interface ConsoleRoute {
  method: string;
  path: string;
}

/**
 * The console's routes as the app registered them. Fastify offers no list of its routes and they are
 * all registered before `buildHarness` could add an `onRoute` hook, so this reads its printed route
 * tree: with `commonPrefix: false` each line is one route, its path relative to the route a level up
 * (4 characters of indent a level), its methods in parentheses. A line that does not read so fails.
 */
function consoleRoutes(app: FastifyInstance): ConsoleRoute[] {
  const above: string[] = [];
  const routes: ConsoleRoute[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue;
    const parts = /^((?:[│ ] {3})*)[├└]── (.+) \(([A-Z, ]+)\)$/.exec(line);
    assert.ok(parts?.[1] !== undefined && parts[2] && parts[3], `a route line: ${line}`);
    const depth = parts[1].length / 4;
    const path = `${above[depth - 1] ?? ''}${parts[2]}`;
    above.splice(depth, above.length, path);
    if (!path.startsWith('/console')) continue;
    for (const method of parts[3].split(', ')) {
      if (method === 'HEAD') continue; // Fastify's HEAD of each GET
      assert.ok(app.hasRoute({ method, url: path }), `${method} ${path} is read as a route`);
      routes.push({ method, path });
    }
  }
  return routes;
}

const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? '');

function kindOf(route: ConsoleRoute, param: string): Kind {
  const rule = PARAM_KINDS.find((each) => route.path.startsWith(each.prefix) && each.param === param);
  if (!rule) {
    assert.fail(
      `${route.method} ${route.path}: the test does not know what :${param} names; give the labels one ` +
        'in givenLabelWithObjects and add it to PARAM_KINDS',
    );
  }
  return rule.kind;
}

/** The route's address with each parameter replaced by the label's object of that kind. */
function addressOf(route: ConsoleRoute, ids: Record<Kind, string>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_whole, param: string) =>
    encodeURIComponent(ids[kindOf(route, param)]),
  );
}

interface LabelWithObjects {
  labelId: number;
  key: string;
  ids: Record<Kind, string>;
  eventId: number;
  /** The label's mark, as its names, titles, addresses and messages carry it. */
  mark: RegExp;
  /** What must never reach another label's member: the API key, the webhook's secret, the invite token. */
  secrets: string[];
}

/**
 * A label on the Pro plan (everything allowed) with one object of every kind, each carrying `mark`
 * where it has a name, a title, an address or a message.
 */
async function givenLabelWithObjects(h: Harness, mark: string): Promise<LabelWithObjects> {
  const slug = mark.toLowerCase().replaceAll(' ', '-');
  const label = await givenLabel(h, { name: `${mark} Records`, plan: 'pro', contractSigned: true });
  const key = await givenKey(h, label.id);
  const artist = await givenArtist(h, label.id, { name: `${mark} Artist` });
  const release = await givenRelease(h, label.id, { artist_id: artist.id, title: `${mark} Release` });
  const link = await givenLink(h, key, { title: `${mark} Link`, artist_name: `${mark} Artist` });
  const webhook = await givenWebhook(h, key, `${HOOK_URL}/${slug}`, ['webhook.test', 'release.live']);
  const login = `${slug}-member`;
  const member = await givenInvitedMember(h, label.id, { login, role: 'manager', name: `${mark} Member` });
  const asked = await call(h, 'POST', '/api/v1/support', { key, payload: { message: `${mark} question` } });
  assert.equal(asked.statusCode, 201, asked.body);
  const eventId = await publishEvent(h, liveWorkspace(label.id), 'webhook.test', { note: `${mark} event` });
  const me = json(await call(h, 'GET', '/api/v1/me', { key })) as { key: { prefix: string } };
  return {
    labelId: label.id,
    key,
    ids: {
      release: String(release.id),
      smartLink: String(link.id),
      webhook: String(webhook.id),
      keyPrefix: me.key.prefix,
      memberId: String(member.userId),
      memberLogin: login,
      supportRequest: String((json(asked) as { request: { id: number } }).request.id),
    },
    eventId,
    mark: new RegExp(mark.replaceAll(' ', '[ -]'), 'i'),
    secrets: [key, webhook.secret, member.invitePath.split('/').pop() ?? member.invitePath],
  };
}

/** Every row of the label's, and the job queue (where a test delivery or a redelivery would wait). */
async function rowsOf(h: Harness, labelId: number): Promise<Record<string, string>> {
  const { db, dialect } = h.ctx;
  const schema =
    dialect === 'postgres'
      ? (await sql<{ name: string }>`select current_schema() as name`.execute(db)).rows[0]?.name
      : undefined;
  const tables = (await db.introspection.getTables()).filter(
    (table) => table.schema === schema && table.columns.some((column) => column.name === 'label_id'),
  );
  const rows: Record<string, unknown[]> = { jobs: (await sql`select * from jobs`.execute(db)).rows };
  for (const table of tables) {
    const query = sql`select * from ${sql.table(table.name)} where label_id = ${labelId}`;
    rows[`${table.name} rows`] = (await query.execute(db)).rows;
  }
  return Object.fromEntries(
    Object.entries(rows).map(([name, each]) => [
      name,
      JSON.stringify(each.map((row) => JSON.stringify(row)).sort()),
    ]),
  );
}

/**
 * What the label's own key reads of its objects, and the label's rows (the API shows no webhook
 * secret and no queued delivery): both must be the same after another label's member tried an address.
 */
async function stateOf(h: Harness, label: LabelWithObjects): Promise<Record<string, string>> {
  const { release, smartLink, webhook } = label.ids;
  const reads: Record<string, string> = {};
  for (const path of [
    '/api/v1/me',
    `/api/v1/releases/${release}`,
    `/api/v1/smart-links/${smartLink}`,
    '/api/v1/webhooks',
    `/api/v1/webhooks/${webhook}/deliveries`,
    '/api/v1/team',
    '/api/v1/support/requests',
  ]) {
    const response = await call(h, 'GET', path, { key: label.key });
    reads[`GET ${path}`] = `${response.statusCode} ${response.body}`;
  }
  return { ...reads, ...(await rowsOf(h, label.labelId)) };
}

const changedParts = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys({ ...before, ...after }).filter((part) => before[part] !== after[part]);

/** What of `other` a page shows: its mark (with what surrounds it) or one of its secrets. */
function leaksIn(body: string, other: LabelWithObjects): string[] {
  const shown = [...body.matchAll(new RegExp(`.{0,40}${other.mark.source}.{0,40}`, 'gi'))].map(
    ([text]) => `"${text}"`,
  );
  const secrets = other.secrets.filter((secret) => body.includes(secret)).map(() => 'a secret');
  return [...shown, ...secrets];
}

/** The page's own content, for a message: the frame and styles around it are the same on every page. */
const mainOf = (body: string) => (/<main[^>]*>([\s\S]*?)<\/main>/.exec(body)?.[1] ?? body).slice(0, 300);

const NOT_FOUND_PAGE = /<title>Not found · Labeldesk console<\/title>/;

/** Opens or posts `route` with `label`'s ids, as the page's link or form would. */
async function open(
  browser: Browser,
  route: ConsoleRoute,
  label: LabelWithObjects,
  fields: Array<[string, string]>,
) {
  const address = addressOf(route, label.ids);
  if (route.method === 'GET') return { address, response: await browser.get(address) };
  assert.equal((await browser.get('/console')).statusCode, 200, 'a page with a fresh form token');
  return { address, response: await browser.post(address, fields) };
}

/** What went wrong when `owner` tried `route` with the other label's ids: nothing, or each problem. */
async function problemsWithTheirIds(
  h: Harness,
  owner: Browser,
  route: ConsoleRoute,
  theirs: LabelWithObjects,
): Promise<string[]> {
  const before = await stateOf(h, theirs);
  const { address, response } = await open(owner, route, theirs, formFields(theirs));
  const where = `${route.method} ${address} (${route.path})`;
  const problems = leaksIn(response.body, theirs).map((leak) => `${where} shows ${leak}`);
  if (response.statusCode !== 404 || !NOT_FOUND_PAGE.test(response.body))
    problems.push(`${where} answers ${response.statusCode}, not the 404 page: ${mainOf(response.body)}`);
  const changed = changedParts(before, await stateOf(h, theirs));
  if (changed.length > 0) problems.push(`${where} changed what the other label has: ${changed.join(', ')}`);
  return problems;
}

test("no console page shows or changes another label's objects, at any address, with any of its ids", async (t) => {
  const h = await harness(t);
  const ours = await givenLabelWithObjects(h, 'Northern Lights');
  const theirs = await givenLabelWithObjects(h, 'Bee Secret 7431');
  const { invitePath } = await givenInvitedMember(h, ours.labelId, { login: 'ours-owner', role: 'owner' });
  const owner = new Browser(h);
  await acceptInvite(owner, invitePath);

  const routes = consoleRoutes(h.app);
  t.diagnostic(`console routes: ${routes.map(({ method, path }) => `${method} ${path}`).join(', ')}`);
  const objectRoutes = routes.filter(({ path }) => path.includes(':') && !NOT_OBJECT_ADDRESSES.has(path));
  for (const route of objectRoutes) {
    assert.ok(
      ['GET', 'POST'].includes(route.method),
      `${route.method} ${route.path}: a method pages do not use`,
    );
    for (const param of paramsOf(route.path)) kindOf(route, param);
  }
  assert.ok(
    objectRoutes.some(({ method, path }) => method === 'GET' && path === '/console/webhooks/:id'),
    'the route list has the pages it is known to have',
  );

  await t.test("list pages show none of the other label's objects", async () => {
    // A signed-in member is sent from the sign-in page to the console.
    const pages = routes
      .filter(({ method, path }) => method === 'GET' && !path.includes(':') && path !== '/console/sign-in')
      .map(({ path }) => path);
    for (const page of LIST_PAGES) assert.ok(pages.includes(page), `${page} is among the routes`);
    const problems: string[] = [];
    for (const page of [...pages, '/console/catalog?q=Secret']) {
      const response = await owner.get(page);
      if (response.statusCode !== 200) problems.push(`GET ${page} answers ${response.statusCode}`);
      problems.push(...leaksIn(response.body, theirs).map((leak) => `GET ${page} shows ${leak}`));
    }
    assert.deepEqual(problems, []);
  });

  await t.test(
    "every address answers the other label's ids with the 404 page and changes nothing",
    async () => {
      const problems: string[] = [];
      for (const route of objectRoutes)
        problems.push(...(await problemsWithTheirIds(h, owner, route, theirs)));
      assert.deepEqual(problems, []);
    },
  );

  await t.test(
    "the same addresses find the label's own objects: the 404s above are the label check",
    async () => {
      // After the sweep, as these forms change the label's own objects (revoke its key, disable its webhook).
      const problems: string[] = [];
      for (const route of objectRoutes) {
        const { address, response } = await open(owner, route, ours, formFields(ours));
        const found = route.method === 'GET' ? response.statusCode === 200 : response.statusCode !== 404;
        if (!found || response.statusCode >= 500)
          problems.push(`${route.method} ${address}: ${response.statusCode} ${mainOf(response.body)}`);
      }
      assert.deepEqual(problems, []);
    },
  );

  await t.test("the Team page's Remove does not find the other label's member", async () => {
    await owner.get('/console/team');
    const before = await stateOf(h, theirs);
    const refused = await owner.post('/console/team/remove', { login: theirs.ids.memberLogin });
    assert.equal(refused.statusCode, 404);
    // The refusal repeats the login that was typed; nothing else of theirs.
    assert.deepEqual(leaksIn(refused.body.replaceAll(theirs.ids.memberLogin, ''), theirs), []);
    assert.deepEqual(changedParts(before, await stateOf(h, theirs)), []);
  });
});
