import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLANS, SCOPES } from '../../src/modules/plans/plans.catalog.ts';
import { TEST_DATABASE } from '../helpers/harness.ts';
import {
  cliJson,
  firstStepsPrinted,
  get,
  type Installation,
  newInstallation,
  type Server,
  startServer,
} from '../helpers/installation.ts';
import { type IssuedOut, type KeyOut, type LabelOut, recentIso } from './cli-output.ts';

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
