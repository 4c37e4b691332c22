import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { masterSecret } from '../src/master-secret.ts';
import {
  get,
  type Installation,
  newInstallation,
  runLabeldesk,
  startServer,
} from './helpers/installation.ts';

const MASTER_KEY = `${'k'.repeat(43)}\n`;

async function installation(t: { after: (fn: () => Promise<void>) => void }): Promise<Installation> {
  const install = await newInstallation('secrets');
  t.after(() => install.dispose());
  return install;
}

test('master.key is created 0600 whatever the umask', (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'labeldesk-master-key-'));
  const previous = process.umask(0);
  t.after(() => {
    process.umask(previous);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const secret = masterSecret({ secret: null, dataDir });
  assert.equal(statSync(join(dataDir, 'master.key')).mode & 0o777, 0o600);
  assert.equal(masterSecret({ secret: null, dataDir }), secret);
});

test('serve refuses to start, in one line naming the file, when master.key is readable by group or others', async (t) => {
  const install = await installation(t);
  const file = join(install.dataDir, 'master.key');
  for (const mode of [0o644, 0o640, 0o604]) {
    writeFileSync(file, MASTER_KEY);
    chmodSync(file, mode);
    const exit = await runLabeldesk(install, ['serve'], { PORT: '0', TRUST_PROXY: '1' });
    assert.deepEqual(
      { code: exit.code, stderr: exit.stderr },
      { code: 1, stderr: `labeldesk: ${file} is readable by group or others; run chmod 600 ${file}\n` },
      mode.toString(8),
    );
  }
  chmodSync(file, 0o600);
  const server = await startServer(install, { TRUST_PROXY: '1' });
  t.after(() => server.stop());
  const status = await get(
    { protocol: 'http', port: server.port, path: '/api/v1/status' },
    { headers: { 'x-forwarded-proto': 'https' } },
  );
  assert.equal(status.status, 200);
});

const PASSWORD = 's3cret';
/** What a TLS-terminating proxy on this machine adds (TRUST_PROXY=1). */
const VIA_PROXY = { 'x-forwarded-proto': 'https' };

test('a DATABASE_URL password is never printed, whether the URL is refused or the server is unreachable', async (t) => {
  const install = await installation(t);
  for (const [url, reason] of [
    [`postgres://u:${PASSWORD}@127.0.0.1:1/x`, /^labeldesk: connect ECONNREFUSED 127\.0\.0\.1:1\n$/],
    [
      `mysql://u:${PASSWORD}@127.0.0.1/x`,
      /^labeldesk: DATABASE_URL: expected a postgres: or postgresql: URL \(got "mysql:\/\/u:\*\*\*@127\.0\.0\.1\/x"\)\n$/,
    ],
    [
      `postgres://u:${PASSWORD}@127.0.0.1:port/x`,
      /^labeldesk: DATABASE_URL: expected an absolute URL \(got "postgres:\/\/u:\*\*\*@127\.0\.0\.1:port\/x"\)\n$/,
    ],
  ] as const) {
    for (const args of [['migrate'], ['serve'], ['label', 'list']]) {
      const exit = await runLabeldesk(install, args, { DATABASE_URL: url, PORT: '0' });
      assert.equal(exit.code, 1, `${args.join(' ')} with ${url}`);
      assert.match(exit.stderr, reason, `${args.join(' ')} with ${url}`);
      assert.ok(!`${exit.stdout}${exit.stderr}`.includes(PASSWORD), `${args.join(' ')} with ${url}`);
    }
  }
});

test('a REDIS_URL password is never printed or logged, even while Redis is unreachable', async (t) => {
  const install = await installation(t);
  const env = { TRUST_PROXY: '1', REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:1` };
  const refused = await runLabeldesk(install, ['serve'], { ...env, REDIS_URL: `http://:${PASSWORD}@h` });
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    'labeldesk: REDIS_URL: expected a redis: or rediss: URL (got "http://:***@h")\n',
  );
  const server = await startServer(install, env);
  const url = { protocol: 'http' as const, port: server.port, path: '/api/v1/me' };
  // A key that is not valid spends the address's failed-login budget, which lives in Redis.
  const refusedCall = await get(url, { headers: { ...VIA_PROXY, authorization: 'Bearer svc_live_nope' } });
  await server.stop();
  assert.equal(refusedCall.status, 503);
  assert.match(server.stdout(), /rate limiter unavailable/);
  assert.ok(!`${server.stdout()}${server.stderr()}`.includes(PASSWORD));
});
