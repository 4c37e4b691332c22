import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generate } from 'selfsigned';
import { TEST_DATABASE, TEST_POSTGRES_URL } from './helpers/harness.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/labeldesk.js');

// ---------------------------------------------------------------------------------------------
// A private installation (fresh data dir; on PostgreSQL a database of its own) and its server.

interface Installation {
  dataDir: string;
  env: Record<string, string>;
  dispose(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function newInstallation(): Promise<Installation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'labeldesk-serve-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (TEST_DATABASE === 'sqlite') {
    return { dataDir, env: { LABELDESK_DATA_DIR: dataDir }, dispose: async () => removeDataDir() };
  }
  const name = `serve_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`create database ${name}`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    dataDir,
    env: { LABELDESK_DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    dispose: async () => {
      await withAdmin((client) => client.query(`drop database if exists ${name} with (force)`));
      removeDataDir();
    },
  };
}

function childEnv(install: Installation, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...install.env, ...extra };
}

interface Server {
  port: number;
  stderr(): string;
  stop(): Promise<void>;
}

const LISTENING = /^Labeldesk listening on .* [\d.]+:(\d+);/m;
/** Printed after the listening line, last of the start-up lines on an empty database. */
const FIRST_STEPS_DONE = /curl --cacert .*\n/;

function waitUntil(ready: () => boolean, child: ChildProcess, ms = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (ready()) {
        clearInterval(poll);
        resolve();
      } else if (child.exitCode !== null || Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error(`serve did not start (exit code ${child.exitCode})`));
      }
    }, 25);
  });
}

/** `labeldesk serve` on a free port (PORT=0), once its start-up lines are all out. */
async function startServer(install: Installation, extra: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: childEnv(install, { PORT: '0', ...extra }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  try {
    await waitUntil(() => LISTENING.test(err) && FIRST_STEPS_DONE.test(err), child);
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${err}`);
  }
  return { port: Number(LISTENING.exec(err)?.[1]), stderr: () => err, stop };
}

interface Reply {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

const SHOWN_HEADERS = ['x-api-version', 'cache-control', 'content-type'] as const;

function get(
  url: { protocol: 'http' | 'https'; port: number; path: string },
  options: { headers?: Record<string, string>; ca?: string } = {},
): Promise<Reply> {
  const send = url.protocol === 'https' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        hostname: url.protocol === 'https' ? 'localhost' : '127.0.0.1',
        family: 4,
        port: url.port,
        path: url.path,
        agent: false,
        headers: options.headers ?? {},
        ...(options.ca && { ca: options.ca }),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const headers = Object.fromEntries(
            SHOWN_HEADERS.map((name) => [name, res.headers[name]?.toString()]),
          );
          resolve({ status: res.statusCode ?? 0, headers, body: JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
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

function runServe(
  install: Installation,
  extra: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, 'serve'],
      { cwd: ROOT, env: childEnv(install, { PORT: '0', ...extra }), timeout: 30_000 },
      (error, _stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr });
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------

const HTTPS_REQUIRED = { error: 'The API is served over HTTPS only', code: 'https_required' };
const CONVENTIONS = { 'x-api-version': '1.1.0', 'cache-control': 'no-store' };

describe('labeldesk serve behind a TLS-terminating proxy (TRUST_PROXY=1)', () => {
  let install: Installation;
  let server: Server;

  before(async () => {
    install = await newInstallation();
    server = await startServer(install, { TRUST_PROXY: '1' });
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
      headers: { ...CONVENTIONS, 'content-type': 'application/json; charset=utf-8' },
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
        headers: { ...CONVENTIONS, 'content-type': 'application/json; charset=utf-8' },
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
    install = await newInstallation();
    pairs = mkdtempSync(join(tmpdir(), 'labeldesk-pairs-'));
  });
  after(async () => {
    await install?.dispose();
    rmSync(pairs, { recursive: true, force: true });
  });

  test('by default a self-signed pair for localhost is generated into the data dir once, and kept', async () => {
    const certFile = join(install.dataDir, 'tls', 'localhost-cert.pem');
    const keyFile = join(install.dataDir, 'tls', 'localhost-key.pem');

    const first = await startServer(install);
    let firstCert: string;
    try {
      assert.match(first.stderr(), new RegExp(`^TLS certificate: ${certFile}$`, 'm'));
      firstCert = readFileSync(certFile, 'utf8');
      const x509 = new X509Certificate(firstCert);
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
      const reply = await get(
        { protocol: 'https', port: first.port, path: '/api/v1/status' },
        { ca: firstCert },
      );
      assert.equal(reply.status, 200);
    } finally {
      await first.stop();
    }

    const second = await startServer(install);
    try {
      assert.equal(readFileSync(certFile, 'utf8'), firstCert);
      const reply = await get(
        { protocol: 'https', port: second.port, path: '/api/v1/status' },
        { ca: firstCert },
      );
      assert.equal(reply.status, 200);
    } finally {
      await second.stop();
    }
  });

  test("TLS_CERT_FILE and TLS_KEY_FILE serve the operator's pair", async () => {
    const own = await localhostPair(pairs, 'own');
    const fresh = await newInstallation();
    const server = await startServer(fresh, { TLS_CERT_FILE: own.cert, TLS_KEY_FILE: own.key });
    try {
      assert.match(server.stderr(), new RegExp(`^TLS certificate: ${own.cert}$`, 'm'));
      const reply = await get(
        { protocol: 'https', port: server.port, path: '/api/v1/status' },
        { ca: readFileSync(own.cert, 'utf8') },
      );
      assert.deepEqual(
        { status: reply.status, headers: reply.headers },
        {
          status: 200,
          headers: { ...CONVENTIONS, 'content-type': 'application/json; charset=utf-8' },
        },
      );
      assert.equal(existsSync(join(fresh.dataDir, 'tls')), false, 'no pair is generated');
    } finally {
      await server.stop();
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
