import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { PLANS, SCOPES } from '../../src/modules/plans/plans.catalog.ts';
import { ROLES } from '../../src/modules/team/team.roles.ts';
import { TEST_DATABASE } from '../helpers/harness.ts';
import { cli, cliJson, type Installation, newInstallation, withClient } from '../helpers/installation.ts';
import { type IssuedOut, type KeyOut, type LabelOut, recentIso } from './cli-output.ts';

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
  '0012_cache_versions',
  '0013_media_locks',
  '0014_label_traffic',
  '0015_link_page_versions',
  '0016_label_traffic_counts',
  '0017_link_count_batches',
  '0018_console_sign_in',
  '0019_key_use_and_attempt_event',
  '0020_takedown_platforms',
  '0021_track_audio_analysis',
  '0022_webhook_recovery',
];

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
      const runs = await Promise.all([1, 2, 3].map(() => cliJson<{ applied: string[] }>(racing, 'migrate')));
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
      await cliJson(install, 'label update 2 --limit rate=1000 --limit releases=unlimited --commission 0.12'),
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
      last_used_at: null,
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
        last_used_at: null,
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
    const added = JSON.parse(exit.stdout) as { member: MemberOut; invite_url: string; expires_at: string };
    assert.match(added.invite_url, /^https:\/\/[^/]+\/console\/invite\/[A-Za-z0-9_-]{43}$/);
    const sevenDays = Date.parse(added.expires_at) - Date.parse(added.member.joined_at);
    assert.ok(Math.abs(sevenDays - 7 * 24 * 3_600_000) < 60_000, `valid 7 days: ${added.expires_at}`);
    assert.deepEqual(added, {
      invite_url: added.invite_url,
      expires_at: added.expires_at,
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

  test('member invite prints a fresh one-time address; member remove frees the seat', async () => {
    const first = await cliJson<{ member: MemberOut; invite_url: string }>(
      install,
      'member invite mira --label 1',
    );
    const second = await cliJson<{ member: MemberOut; invite_url: string }>(
      install,
      'member invite mira --label 1',
    );
    assert.equal(first.member.login, 'mira');
    assert.notEqual(first.invite_url, second.invite_url);
    await refused(install, [
      ['member invite nobody --label 1', 'labeldesk: not_found: Member nobody not found'],
      ['member remove nobody --label 1', 'labeldesk: not_found: Member nobody not found'],
    ]);
    const removed = await cliJson<{ member: MemberOut }>(install, 'member remove jonas --label 1');
    assert.equal(removed.member.login, 'jonas');
    const added = await cliJson<{ member: MemberOut }>(
      install,
      'member add --label 1 --login ola --name "Ola Nordmann" --role editor',
    );
    assert.equal(added.member.login, 'ola', 'the seat was freed');
  });

  test('sandbox reset --json re-copies the catalog of a label that has a sandbox', async () => {
    const labels = await cliJson<{ labels: Array<{ id: number; name: string }> }>(install, 'label list');
    const withoutSandbox = await cliJson<{ label: LabelOut }>(install, 'label create --name "No Sandbox"');
    assert.ok(labels.labels.length > 0);
    const reset = await cliJson<{ label_id: number; sandbox_id: number }>(install, 'sandbox reset --label 1');
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
