// The package as it is published: compiled by its own build (no Node.js types, the DOM's instead, so a
// Node-only global such as Buffer or process does not compile) into JavaScript that Node.js imports, and
// bundled for the browser platform (where a `node:` import does not resolve) with openapi-fetch alone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readdirSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

test('the build compiles src/ without Node.js types into modules Node.js imports', async () => {
  // dist/ itself, as `npm run build -w @labeldesk/client` makes it: beside the package, its imports resolve.
  const outDir = join(PACKAGE, 'dist');
  rmSync(outDir, { recursive: true, force: true });
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: PACKAGE });
  assert.deepEqual(
    readdirSync(outDir)
      .filter((file) => file.endsWith('.js'))
      .sort(),
    ['client.js', 'errors.js', 'feed.js', 'index.js', 'paginate.js', 'schema.js', 'verify-webhook.js'],
  );
  const compiled = await import(pathToFileURL(join(outDir, 'index.js')).href);
  assert.deepEqual(Object.keys(compiled).sort(), [
    'DEFAULT_RETRY',
    'LabeldeskApiError',
    'WebhookVerificationError',
    'createLabeldeskClient',
    'feed',
    'nextLink',
    'paginate',
    'verifyWebhook',
  ]);
  const t0 = Math.floor(Date.now() / 1000);
  const body = '{"id":"d","event":"webhook.test","created_at":"2026-11-27T00:00:00.000Z","data":{}}';
  const v1 = createHmac('sha256', 'svcwh_x').update(`${t0}.${body}`).digest('hex');
  assert.equal((await compiled.verifyWebhook(body, `t=${t0},v1=${v1}`, 'svcwh_x')).event, 'webhook.test');
});

test('the browser bundle holds the package and openapi-fetch only', async () => {
  const result = await build({
    entryPoints: [join(PACKAGE, 'src/index.ts')],
    absWorkingDir: PACKAGE,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // Real paths: node_modules may be a link to another checkout's.
  const openapiFetch = dirname(dirname(fileURLToPath(import.meta.resolve('openapi-fetch'))));
  const allowed = [realpathSync(join(PACKAGE, 'src')), realpathSync(openapiFetch)].map((dir) => dir + sep);
  const inputs = Object.keys(result.metafile.inputs).map((input) => realpathSync(resolve(PACKAGE, input)));
  assert.deepEqual(
    inputs.filter((input) => !allowed.some((dir) => input.startsWith(dir))),
    [],
  );
  assert.ok(
    inputs.some((input) => input.startsWith(allowed[1] ?? '')),
    inputs.join(', '),
  );
});
