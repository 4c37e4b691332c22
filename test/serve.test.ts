import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generate } from 'selfsigned';
import { TEST_DATABASE } from './helpers/harness.ts';
import {
  firstStepsPrinted,
  get,
  type Installation,
  newInstallation,
  type Reply,
  runLabeldesk,
  type Server,
  startServer,
} from './helpers/installation.ts';

// ---------------------------------------------------------------------------------------------
// Every server here starts on an empty database, so each start waits for the first steps too.

function startUntilFirstSteps(install: Installation, extraEnv: Record<string, string> = {}): Promise<Server> {
  return startServer(install, extraEnv, firstStepsPrinted);
}

/** Runs `work` against a server that is stopped afterwards, whether `work` passed or threw. */
async function withServer<T>(
  install: Installation,
  extraEnv: Record<string, string>,
  work: (server: Server) => Promise<T>,
): Promise<T> {
  const server = await startUntilFirstSteps(install, extraEnv);
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

/** GET /api/v1/status over TLS, trusting only `ca`. */
function statusOverTls(server: Server, ca: string): Promise<Reply> {
  return get({ protocol: 'https', port: server.port, path: '/api/v1/status' }, { ca });
}

/** A certificate and key for localhost, as an operator might bring them. */
async function localhostPair(dir: string, name: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  });
  const cert = join(dir, `${name}-cert.pem`);
  const key = join(dir, `${name}-key.pem`);
  writeFileSync(cert, pems.cert);
  writeFileSync(key, pems.private);
  return { cert, key };
}

/** `labeldesk serve` run to its end: for configurations it must refuse at start-up. */
async function runServe(
  install: Installation,
  extraEnv: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await runLabeldesk(install, ['serve'], { PORT: '0', ...extraEnv });
  return { code, stderr };
}

// ---------------------------------------------------------------------------------------------

const HTTPS_REQUIRED = { error: 'The API is served over HTTPS only', code: 'https_required' };
/** What the conventions put on every JSON reply, refusals included. */
const JSON_HEADERS = {
  'x-api-version': '1.1.0',
  'cache-control': 'no-store',
  'content-type': 'application/json; charset=utf-8',
};

describe('labeldesk serve behind a TLS-terminating proxy (TRUST_PROXY=1)', () => {
  let install: Installation;
  let server: Server;

  before(async () => {
    install = await newInstallation('serve');
    server = await startUntilFirstSteps(install, { TRUST_PROXY: '1' });
  });
  after(async () => {
    await server?.stop();
    await install?.dispose();
  });

  test('listens on plain HTTP and generates no certificate', () => {
    const [listening, next] = server.stderr().split('\n');
    assert.deepEqual(
      [listening, next],
      [
        `Labeldesk listening on http (behind a TLS proxy) 127.0.0.1:${server.port}; API at https://localhost:8443/api/v1 (${TEST_DATABASE})`,
        'This database has no label yet. Create one and a key, then call the API:',
      ],
    );
    assert.match(server.stderr(), /curl --cacert <your proxy CA> /);
    assert.equal(existsSync(join(install.dataDir, 'tls')), false);
  });

  test('a request without X-Forwarded-Proto: https gets 403 https_required', async () => {
    const plain = { protocol: 'http' as const, port: server.port };
    const replies = await Promise.all([
      get({ ...plain, path: '/api/v1/status' }),
      get({ ...plain, path: '/api/v1/status' }, { headers: { 'x-forwarded-proto': 'http' } }),
      get({ ...plain, path: '/api/v1/me' }, { headers: { authorization: `Bearer svc_${'a'.repeat(40)}` } }),
      get({ ...plain, path: '/api/v1/no-such-route' }),
    ]);
    const refusal = {
      status: 403,
      headers: JSON_HEADERS,
      body: HTTPS_REQUIRED,
    };
    assert.deepEqual(replies, [refusal, refusal, refusal, refusal]);
  });

  test('with X-Forwarded-Proto: https the request is served', async () => {
    const reply = await get(
      { protocol: 'http', port: server.port, path: '/api/v1/status' },
      { headers: { 'x-forwarded-proto': 'https' } },
    );
    const body = reply.body as { status?: string; checks?: { database?: { ok?: boolean } } };
    assert.deepEqual(
      {
        status: reply.status,
        headers: reply.headers,
        service: body.status,
        database: body.checks?.database?.ok,
      },
      {
        status: 200,
        headers: JSON_HEADERS,
        service: 'ok',
        database: true,
      },
    );
  });
});

describe('labeldesk serve TLS material', () => {
  let install: Installation;
  let pairs: string;

  before(async () => {
    install = await newInstallation('serve');
    pairs = mkdtempSync(join(tmpdir(), 'labeldesk-pairs-'));
  });
  after(async () => {
    await install?.dispose();
    rmSync(pairs, { recursive: true, force: true });
  });

  test('by default a self-signed pair for localhost is generated into the data dir once, and kept', async () => {
    const certFile = join(install.dataDir, 'tls', 'localhost-cert.pem');
    const keyFile = join(install.dataDir, 'tls', 'localhost-key.pem');

    const firstCert = await withServer(install, {}, async (first) => {
      assert.match(first.stderr(), new RegExp(`^TLS certificate: ${certFile}$`, 'm'));
      const cert = readFileSync(certFile, 'utf8');
      const x509 = new X509Certificate(cert);
      assert.deepEqual(
        {
          subject: x509.subject,
          host: x509.checkHost('localhost'),
          ipv4: x509.checkIP('127.0.0.1'),
          ipv6: x509.checkIP('::1'),
          keyMode: statSync(keyFile).mode & 0o777,
        },
        { subject: 'CN=localhost', host: 'localhost', ipv4: '127.0.0.1', ipv6: '::1', keyMode: 0o600 },
      );
      assert.equal((await statusOverTls(first, cert)).status, 200);
      return cert;
    });

    await withServer(install, {}, async (second) => {
      assert.equal(readFileSync(certFile, 'utf8'), firstCert);
      assert.equal((await statusOverTls(second, firstCert)).status, 200);
    });
  });

  test("TLS_CERT_FILE and TLS_KEY_FILE serve the operator's pair", async () => {
    const own = await localhostPair(pairs, 'own');
    const fresh = await newInstallation('serve');
    try {
      await withServer(fresh, { TLS_CERT_FILE: own.cert, TLS_KEY_FILE: own.key }, async (server) => {
        assert.match(server.stderr(), new RegExp(`^TLS certificate: ${own.cert}$`, 'm'));
        const reply = await statusOverTls(server, readFileSync(own.cert, 'utf8'));
        assert.deepEqual(
          { status: reply.status, headers: reply.headers },
          { status: 200, headers: JSON_HEADERS },
        );
        assert.equal(existsSync(join(fresh.dataDir, 'tls')), false, 'no pair is generated');
      });
    } finally {
      await fresh.dispose();
    }
  });

  test('an unusable TLS file stops serve with one line naming the variable', async () => {
    const own = await localhostPair(pairs, 'a');
    const other = await localhostPair(pairs, 'b');
    const garbage = join(pairs, 'garbage.pem');
    writeFileSync(garbage, 'not a pem\n');
    const missing = join(pairs, 'missing.pem');

    const cases: Array<[Record<string, string>, string]> = [
      [{ TLS_CERT_FILE: missing, TLS_KEY_FILE: own.key }, `TLS_CERT_FILE: cannot read ${missing} (ENOENT)`],
      [{ TLS_CERT_FILE: own.cert, TLS_KEY_FILE: missing }, `TLS_KEY_FILE: cannot read ${missing} (ENOENT)`],
      [
        { TLS_CERT_FILE: garbage, TLS_KEY_FILE: own.key },
        `TLS_CERT_FILE: ${garbage} is not a PEM certificate`,
      ],
      [
        { TLS_CERT_FILE: own.cert, TLS_KEY_FILE: garbage },
        `TLS_KEY_FILE: ${garbage} is not a PEM private key`,
      ],
      [
        { TLS_CERT_FILE: own.cert, TLS_KEY_FILE: other.key },
        'TLS_CERT_FILE and TLS_KEY_FILE: the key does not belong to the certificate',
      ],
      [{ TLS_CERT_FILE: own.cert }, 'TLS_CERT_FILE and TLS_KEY_FILE: set both or neither'],
    ];
    const exits = await Promise.all(cases.map(([env]) => runServe(install, env)));
    assert.deepEqual(
      exits,
      cases.map(([, reason]) => ({ code: 1, stderr: `labeldesk: ${reason}\n` })),
    );
  });
});
