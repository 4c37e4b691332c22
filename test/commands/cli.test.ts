import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { PLANS, SCOPES } from '../../src/modules/plans/plans.catalog.ts';
import { ROLES } from '../../src/modules/team/team.roles.ts';
import { TEST_DATABASE } from '../helpers/harness.ts';
import {
  type Exit,
  firstStepsPrinted,
  get,
  type Installation,
  newInstallation,
  runLabeldesk,
  type Server,
  startServer,
  withClient,
} from '../helpers/installation.ts';

const MIGRATIONS = [
  '0001_platform',
  '0002_catalog',
  '0003_catalog_search',
  '0004_catalog_counts',
  '0005_events',
  '0006_webhooks',
  '0007_pipeline',
  '0008_smart_links',
  '0009_finance',
  '0010_job_fairness',
  '0011_webhook_attempt_workspace',
];

// ---------------------------------------------------------------------------------------------
// Running the command line as an operator types it.

/** `label create --name "My Label" --plan label` as argv: words, or double-quoted text. */
function argv(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
}

function cli(install: Installation, line: string): Promise<Exit> {
  return runLabeldesk(install, argv(line));
}

/** Runs a command with --json: it must exit 0 with nothing on stderr; returns the parsed output. */
async function cliJson<T>(install: Installation, line: string): Promise<T> {
  const exit = await cli(install, `${line} --json`);
  assert.deepEqual({ code: exit.code, stderr: exit.stderr }, { code: 0, stderr: '' }, exit.stdout);
  return JSON.parse(exit.stdout) as T;
}

/** Commands that must fail, run side by side: each exits 1 with nothing on stdout and its one line on stderr. */
async function refused(
  install: Installation,
  cases: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  const exits = await Promise.all(cases.map(([line]) => cli(install, line)));
  assert.deepEqual(
    exits,
    cases.map(([, reason]) => ({ code: 1, stdout: '', stderr: `${reason}\n` })),
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A timestamp written just now; returns it so whole-object comparisons can take it as it is. */
function recentIso(value: string | null | undefined): string {
  assert.match(value ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.ok(Math.abs(Date.now() - Date.parse(value ?? '')) < 300_000, `${value} is not recent`);
  return value ?? '';
}

interface LabelOut {
  id: number;
  name: string;
  slug: string;
  plan: string;
  contract_signed: boolean;
  limit_overrides: Record<string, number | null>;
  commission_override: number | null;
  created_at: string;
}

interface IssuedOut {
  key: string;
  prefix: string;
  scopes: string[];
  sandbox: boolean;
}

interface KeyOut {
  prefix: string;
  scopes: string[];
  sandbox: boolean;
  allow_ips: string[] | null;
  created_at: string;
  revoked_at: string | null;
}

interface MemberOut {
  user_id: number;
  login: string;
  name: string;
  role: string;
  role_title: string;
  permissions: string[];
  joined_at: string;
  last_seen_at: string | null;
}

/** Every api_keys row as stored, read from the SQLite file (read-only) or the PostgreSQL database. */
async function storedKeyRows(install: Installation): Promise<Array<Record<string, unknown>>> {
  const query = 'select * from api_keys order by id';
  if (install.databaseUrl) {
    return withClient(
      install.databaseUrl,
      async (client) => (await client.query<Record<string, unknown>>(query)).rows,
    );
  }
  const db = new SqliteDatabase(join(install.dataDir, 'labeldesk.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return db.prepare<[], Record<string, unknown>>(query).all();
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Talking to the server.

/** GET /api/v1/me over TLS as the holder of `key`, trusting only `ca`; the headers are serve.test.ts's concern. */
async function meOverTls(
  server: Server,
  ca: string,
  key: string,
): Promise<{ status: number; body: unknown }> {
  const { status, body } = await get(
    { protocol: 'https', port: server.port, path: '/api/v1/me' },
    { ca, headers: { authorization: `Bearer ${key}` } },
  );
  return { status, body };
}

/** Plain HTTP/1.1 written to a port: what came back before the connection closed. */
function plainHttpExchange(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('connect', () => {
      socket.write('GET /api/v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(5_000, () => socket.destroy());
  });
}

/** The request log lines (one JSON object a line on stdout) as [url, status]. */
function loggedRequests(stdout: string): Array<[string | undefined, number | undefined]> {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg?: string; url?: string; status?: number })
    .filter((entry) => entry.msg === 'request')
    .map((entry) => [entry.url, entry.status]);
}

// ---------------------------------------------------------------------------------------------

// The two installations are independent, so their suites run side by side.
describe('labeldesk command line', { concurrency: true }, () => {
  describe('labeldesk commands', { concurrency: 1 }, () => {
    let install: Installation;
    /** Keys of label 1, in the order they were issued. */
    const issued: IssuedOut[] = [];
    let northern: LabelOut;
    let harbour: LabelOut;

    before(async () => {
      install = await newInstallation('cli');
    });
    after(async () => {
      await install?.dispose();
    });

    test('migrate --json applies the schema once', async () => {
      assert.deepEqual(await cliJson(install, 'migrate'), { applied: MIGRATIONS, dialect: TEST_DATABASE });
      assert.deepEqual(await cliJson(install, 'migrate'), { applied: [], dialect: TEST_DATABASE });
    });

    test('commands started at once on a fresh installation apply each migration once, and all succeed', async () => {
      const racing = await newInstallation('cli_race');
      try {
        const runs = await Promise.all(
          [1, 2, 3].map(() => cliJson<{ applied: string[] }>(racing, 'migrate')),
        );
        assert.deepEqual(runs.flatMap((run) => run.applied).sort(), MIGRATIONS);
      } finally {
        await racing.dispose();
      }
    });

    test('label create --json prints {label: {id, name, slug, ...}}', async () => {
      const first = await cliJson<{ label: LabelOut }>(install, 'label create --name "Northern Lights"');
      assert.deepEqual(first, {
        label: {
          id: 1,
          name: 'Northern Lights',
          slug: 'northern-lights',
          plan: 'start',
          contract_signed: false,
          limit_overrides: {},
          commission_override: null,
          created_at: recentIso(first.label.created_at),
        },
      });
      northern = first.label;

      const second = await cliJson<{ label: LabelOut }>(
        install,
        'label create --name "Harbour Sound" --plan label --contract-signed',
      );
      assert.deepEqual(second, {
        label: {
          id: 2,
          name: 'Harbour Sound',
          slug: 'harbour-sound',
          plan: 'label',
          contract_signed: true,
          limit_overrides: {},
          commission_override: null,
          created_at: recentIso(second.label.created_at),
        },
      });
      harbour = second.label;
    });

    test('label list --json lists the labels', async () => {
      assert.deepEqual(await cliJson(install, 'label list'), { labels: [northern, harbour] });
    });

    test('label update sets per-label limits and commission; default removes them', async () => {
      assert.deepEqual(
        await cliJson(
          install,
          'label update 2 --limit rate=1000 --limit releases=unlimited --commission 0.12',
        ),
        { label: { ...harbour, limit_overrides: { rate: 1000, releases: null }, commission_override: 0.12 } },
      );
      assert.deepEqual(await cliJson(install, 'label update 2 --limit rate=default'), {
        label: { ...harbour, limit_overrides: { releases: null }, commission_override: 0.12 },
      });
      assert.deepEqual(
        await cliJson(
          install,
          'label update 2 --limit releases=default --commission default --no-contract --plan pro',
        ),
        { label: { ...harbour, plan: 'pro', contract_signed: false } },
      );
    });

    test('label commands refuse bad input with exit code 1 and one line', async () => {
      await refused(install, [
        [
          'label create --name "Gold Records" --plan gold --json',
          'labeldesk: invalid: plan must be one of start, label, pro, enterprise (plan)',
        ],
        ['label create --plan pro', "labeldesk: required option '--name <name>' not specified"],
        ['label update 2 --limit speed=5', 'labeldesk: invalid: unknown limit "speed" (limit)'],
        [
          'label update 2 --commission 1.5',
          'labeldesk: invalid: commission must be a fraction from 0 up to (not including) 1 (commission)',
        ],
        [
          'label update 2 --limit rate=fast',
          'labeldesk: --limit rate must be a whole number, unlimited or default',
        ],
        ['label update 99 --plan pro --json', 'labeldesk: not_found: Label not found'],
        ['label update abc', 'labeldesk: "abc" is not an id'],
        ['lable list', "labeldesk: unknown command 'lable' (Did you mean label?)"],
      ]);
    });

    test('key create --json prints the key once, its prefix, and the scopes "all" stands for', async () => {
      const key = await cliJson<IssuedOut>(install, 'key create --label 1 --scopes all');
      assert.match(key.key, /^svc_[A-Za-z0-9]{32,}$/);
      assert.match(key.prefix, /^svc_[A-Za-z0-9]+$/);
      assert.ok(key.key.startsWith(key.prefix) && key.prefix.length < key.key.length, key.prefix);
      assert.deepEqual(key, { key: key.key, prefix: key.prefix, scopes: [...SCOPES], sandbox: false });
      issued.push(key);
    });

    test('a Start label has one live key: the second is plan_limit, sandbox keys still work', async () => {
      assert.equal(PLANS.start.limits.api_keys, 1);
      await refused(install, [
        [
          'key create --label 1 --scopes all',
          'labeldesk: plan_limit: The api_keys limit of the plan is used up',
        ],
      ]);

      const sandbox = await cliJson<IssuedOut>(
        install,
        'key create --label 1 --scopes links:read,catalog:read --sandbox --allow-ip 203.0.113.7,10.0.0.0/8,2001:db8::/32',
      );
      assert.match(sandbox.key, /^svc_test_[A-Za-z0-9]{32,}$/);
      assert.ok(sandbox.prefix.startsWith('svc_test_') && sandbox.key.startsWith(sandbox.prefix));
      assert.deepEqual(sandbox, {
        key: sandbox.key,
        prefix: sandbox.prefix,
        scopes: ['catalog:read', 'links:read'],
        sandbox: true,
      });
      issued.push(sandbox);

      const another = await cliJson<IssuedOut>(install, 'key create --label 1 --scopes all --sandbox');
      assert.match(another.key, /^svc_test_[A-Za-z0-9]{32,}$/);
      issued.push(another);
    });

    test('key commands refuse bad input with exit code 1 and one line', async () => {
      await refused(install, [
        [
          'key create --label 2 --scopes catalog:read,catalog:delete',
          `labeldesk: invalid: unknown scope catalog:delete; scopes are ${SCOPES.join(', ')} or all (scopes)`,
        ],
        [
          'key create --label 2 --scopes all --allow-ip 10.0.0.1,10.0.0.300 --json',
          'labeldesk: invalid: "10.0.0.300" is not an IPv4 address, IPv6 address or CIDR range (allow_ip)',
        ],
        ['key create --label 2', "labeldesk: required option '--scopes <scopes>' not specified"],
        ['key revoke svc_doesnotexist --json', 'labeldesk: not_found: Key not found'],
      ]);
    });

    test('key list --json shows prefixes and terms, never a key or its hash', async () => {
      const exit = await cli(install, 'key list --label 1 --json');
      assert.equal(exit.code, 0, exit.stderr);
      const listed = JSON.parse(exit.stdout) as { keys: KeyOut[] };
      /** The nth issued key as listed: its prefix and terms, created just now and not revoked. */
      const listedKey = (n: number, terms: Pick<KeyOut, 'scopes' | 'sandbox' | 'allow_ips'>) => ({
        prefix: issued[n]?.prefix,
        ...terms,
        created_at: recentIso(listed.keys[n]?.created_at),
        revoked_at: null,
      });
      assert.deepEqual(listed, {
        keys: [
          // The live key, the sandbox key with an allow-list, and the second sandbox key.
          listedKey(0, { scopes: [...SCOPES], sandbox: false, allow_ips: null }),
          listedKey(1, {
            scopes: ['catalog:read', 'links:read'],
            sandbox: true,
            allow_ips: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32'],
          }),
          listedKey(2, { scopes: [...SCOPES], sandbox: true, allow_ips: null }),
        ],
      });
      for (const { key } of issued) {
        assert.ok(!exit.stdout.includes(key.slice(0, 20)), 'more of a key than its prefix is listed');
        assert.ok(!exit.stdout.includes(sha256(key)), 'a key hash is listed');
      }
    });

    test('only the SHA-256 hash and the prefix of a key are stored', async () => {
      const rows = await storedKeyRows(install);
      assert.deepEqual(
        rows.map((row) => ({ prefix: row.prefix, key_hash: row.key_hash, sandbox: Number(row.sandbox) })),
        issued.map((k) => ({ prefix: k.prefix, key_hash: sha256(k.key), sandbox: k.sandbox ? 1 : 0 })),
      );
      const stored = JSON.stringify(rows);
      for (const { key } of issued) assert.ok(!stored.includes(key), 'a full key is stored');
      if (!install.databaseUrl) {
        for (const file of ['labeldesk.sqlite', 'labeldesk.sqlite-wal']) {
          const path = join(install.dataDir, file);
          if (!existsSync(path)) continue;
          const bytes = readFileSync(path).toString('latin1');
          for (const { key } of issued) assert.ok(!bytes.includes(key), `a full key is in ${file}`);
        }
      }
    });

    test('key revoke PREFIX --json shows revoked_at; the revoked key frees its plan slot', async () => {
      const [live] = issued;
      assert.ok(live);
      const revoked = await cliJson<{ key: KeyOut }>(install, `key revoke ${live.prefix}`);
      assert.deepEqual(revoked, {
        key: {
          prefix: live.prefix,
          scopes: [...SCOPES],
          sandbox: false,
          allow_ips: null,
          created_at: recentIso(revoked.key.created_at),
          revoked_at: recentIso(revoked.key.revoked_at),
        },
      });

      const replacement = await cliJson<IssuedOut>(install, 'key create --label 1 --scopes catalog:read');
      assert.deepEqual(replacement.scopes, ['catalog:read']);
    });

    test('member add --json presents the member without the e-mail', async () => {
      const exit = await cli(
        install,
        'member add --label 1 --login mira --name "Mira Kovac" --role owner --email mira@example.com --json',
      );
      assert.equal(exit.code, 0, exit.stderr);
      assert.ok(!exit.stdout.includes('mira@example.com'), 'the e-mail is printed');
      const added = JSON.parse(exit.stdout) as { member: MemberOut };
      assert.deepEqual(added, {
        member: {
          user_id: added.member.user_id,
          login: 'mira',
          name: 'Mira Kovac',
          role: 'owner',
          role_title: 'Owner',
          permissions: [...ROLES.owner.permissions],
          joined_at: recentIso(added.member.joined_at),
          last_seen_at: null,
        },
      });
    });

    test('a Start label has two seats: the third member is plan_limit', async () => {
      assert.equal(PLANS.start.limits.members, 2);
      const second = await cliJson<{ member: MemberOut }>(
        install,
        'member add --label 1 --login jonas --name "Jonas Berg" --role viewer',
      );
      assert.deepEqual(
        {
          role: second.member.role,
          role_title: second.member.role_title,
          permissions: second.member.permissions,
        },
        { role: 'viewer', role_title: 'Viewer', permissions: [...ROLES.viewer.permissions] },
      );
      await refused(install, [
        [
          'member add --label 1 --login ola --name "Ola Nordmann" --role editor --json',
          'labeldesk: plan_limit: The members limit of the plan is used up',
        ],
        [
          'member add --label 2 --login ola --name "Ola Nordmann" --role boss',
          'labeldesk: invalid: role must be one of owner, admin, manager, editor, accountant, viewer (role)',
        ],
      ]);
    });

    test('sandbox reset --json re-copies the catalog of a label that has a sandbox', async () => {
      const labels = await cliJson<{ labels: Array<{ id: number; name: string }> }>(install, 'label list');
      const withoutSandbox = await cliJson<{ label: LabelOut }>(install, 'label create --name "No Sandbox"');
      assert.ok(labels.labels.length > 0);
      const reset = await cliJson<{ label_id: number; sandbox_id: number }>(
        install,
        'sandbox reset --label 1',
      );
      assert.equal(reset.label_id, 1);
      assert.ok(reset.sandbox_id > 1);
      await refused(install, [
        [
          `sandbox reset --label ${withoutSandbox.label.id}`,
          'labeldesk: invalid: This label has no sandbox: create a key with --sandbox first (label)',
        ],
        ['sandbox reset --label 999', 'labeldesk: not_found: Label not found'],
      ]);
    });
  });

  describe('labeldesk serve, operated with the command line', { concurrency: 1 }, () => {
    let install: Installation;
    let server: Server;
    let ca = '';
    let key = '';
    let commands: string[] = [];
    const certFile = () => join(install.dataDir, 'tls', 'localhost-cert.pem');

    before(async () => {
      install = await newInstallation('cli');
      server = await startServer(install, {}, firstStepsPrinted);
    });
    after(async () => {
      await server?.stop();
      await install?.dispose();
    });

    test('on an empty database serve prints the commands to run first', () => {
      const lines = server.stderr().split('\n');
      assert.deepEqual(lines, [
        `Labeldesk listening on https 127.0.0.1:${server.port}; API at https://localhost:8443/api/v1 (${TEST_DATABASE})`,
        `TLS certificate: ${certFile()}`,
        'This database has no label yet. Create one and a key, then call the API:',
        '  npx labeldesk label create --name "My Label" --plan label --contract-signed',
        '  npx labeldesk key create --label 1 --scopes all',
        `  curl --cacert ${certFile()} -H "Authorization: Bearer <KEY>" https://localhost:8443/api/v1/me`,
        '',
      ]);
      commands = lines.filter((line) => line.startsWith('  npx labeldesk ')).map((line) => line.slice(16));
      ca = readFileSync(certFile(), 'utf8');
      assert.match(ca, /^-----BEGIN CERTIFICATE-----\n/);
    });

    test('plain HTTP to the TLS port gets no HTTP response', async () => {
      const received = await plainHttpExchange(server.port);
      assert.doesNotMatch(received, /^HTTP\//);
      assert.ok(!received.includes('HTTP/1.1 200'));
    });

    test('the printed commands work, and /me answers over TLS with the new key', async () => {
      const [labelCreate = '', keyCreate = ''] = commands;
      const created = await cliJson<{ label: LabelOut }>(install, labelCreate);
      assert.deepEqual(
        { id: created.label.id, name: created.label.name, plan: created.label.plan },
        { id: 1, name: 'My Label', plan: 'label' },
      );
      const issuedKey = await cliJson<IssuedOut>(install, keyCreate);
      key = issuedKey.key;

      const me = await meOverTls(server, ca, key);
      const body = me.body as { key?: { created_at?: string } };
      assert.deepEqual(me, {
        status: 200,
        body: {
          label: { id: 1, name: 'My Label', slug: 'my-label' },
          key: {
            prefix: issuedKey.prefix,
            scopes: [...SCOPES],
            created_at: recentIso(body.key?.created_at),
          },
          plan: {
            key: 'label',
            name: 'Label',
            commission_rate: 0.15,
            limits: PLANS.label.limits,
            usage: { releases: 0, artists: 0, members: 0, links: 0, api_keys: 1, webhooks: 0 },
            features: PLANS.label.features,
          },
          rate_limit: { per_minute: PLANS.label.limits.rate },
          api_version: '1.1.0',
          docs: 'https://localhost:8443/api/v1/docs',
          openapi: 'https://localhost:8443/api/v1/openapi.json',
        },
      });
    });

    test('a plan change and per-label terms set with the CLI apply on the next request', async () => {
      await cliJson(
        install,
        'label update 1 --plan start --limit rate=1000 --limit releases=unlimited --commission 0.12',
      );
      const me = await meOverTls(server, ca, key);
      const body = me.body as { plan?: unknown; key?: { scopes?: unknown }; rate_limit?: unknown };
      assert.deepEqual(
        { status: me.status, plan: body.plan, scopes: body.key?.scopes, rate_limit: body.rate_limit },
        {
          status: 200,
          plan: {
            key: 'start',
            name: 'Start',
            commission_rate: 0.12,
            limits: { ...PLANS.start.limits, rate: 1000, releases: null },
            usage: { releases: 0, artists: 0, members: 0, links: 0, api_keys: 1, webhooks: 0 },
            features: PLANS.start.features,
          },
          scopes: ['catalog:read', 'stats:read', 'links:read', 'links:write'],
          rate_limit: { per_minute: 1000 },
        },
      );
    });

    test('a key revoked with the CLI is refused on the next request', async () => {
      const { keys } = await cliJson<{ keys: KeyOut[] }>(install, 'key list --label 1');
      const [only] = keys;
      assert.ok(only && keys.length === 1 && key.startsWith(only.prefix));
      await cliJson(install, `key revoke ${only.prefix}`);

      assert.deepEqual(await meOverTls(server, ca, key), {
        status: 401,
        body: {
          error: 'A valid API key is required: send Authorization: Bearer <API_KEY>',
          code: 'unauthorized',
        },
      });
    });

    test('only the TLS requests reached a handler', async () => {
      const expected = [
        ['/api/v1/me', 200],
        ['/api/v1/me', 200],
        ['/api/v1/me', 401],
      ];
      // The log line is written after the response is sent: give the last one a moment.
      const deadline = Date.now() + 5_000;
      while (loggedRequests(server.stdout()).length < expected.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.deepEqual(loggedRequests(server.stdout()), expected);
    });
  });
});
