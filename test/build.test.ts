// The compiled build, which `npm install` makes and operators run. Every other test runs the sources
// (LABELDESK_FROM_SOURCES, test/helpers/installation.ts), so that an edit is tested without a rebuild;
// this one compiles src/ afresh, as `npm run build` does, into a package of its own: bin/, dist/,
// package.json and the checkout's node_modules, with no src/ that tsx could fall back to.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { wavFile } from './helpers/audio.ts';
import {
  cliJson,
  get,
  type Installation,
  newInstallation,
  type Program,
  runLabeldesk,
  startServer,
} from './helpers/installation.ts';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));

/** `npm run build` into `dir`: the same tsconfig.build.json, another output directory. */
async function compiledPackage(dir: string): Promise<Program> {
  await execFileAsync(
    process.execPath,
    [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')],
    { cwd: ROOT, timeout: 300_000 },
  );
  await cp(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  await cp(join(ROOT, 'package.json'), join(dir, 'package.json'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { bin: join(dir, 'bin', 'labeldesk.js'), env: {} };
}

describe('the compiled build', () => {
  let dir: string;
  let install: Installation;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'labeldesk-build-'));
    install = await newInstallation('build', await compiledPackage(dir));
  });

  after(async () => {
    await install?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the operator commands run from dist/', async () => {
    assert.equal((await runLabeldesk(install, ['migrate'])).code, 0);
    await cliJson(install, ['label', 'create', '--name', 'Compiled Records', '--plan', 'label']);
    const { labels } = await cliJson<{ labels: Array<{ name: string }> }>(install, ['label', 'list']);
    assert.deepEqual(
      labels.map((label) => label.name),
      ['Compiled Records'],
    );
  });

  test('serve answers GET /api/v1/status over its own certificate', async () => {
    const server = await startServer(install);
    try {
      const ca = await readFile(join(install.dataDir, 'tls', 'localhost-cert.pem'), 'utf8');
      const reply = await get({ protocol: 'https', port: server.port, path: '/api/v1/status' }, { ca });
      assert.equal(reply.status, 200);
    } finally {
      await server.stop();
    }
  });

  test('an audio analysis runs in a compiled worker thread, without tsx', async () => {
    const wav = join(dir, 'plain.wav');
    await writeFile(wav, wavFile());
    const pool = pathToFileURL(join(dir, 'dist', 'modules', 'moderation', 'moderation.pool.js')).href;
    const script = [
      `const pool = await import(${JSON.stringify(pool)});`,
      `console.log(JSON.stringify(await pool.lossySourceEvidenceOffThread(${JSON.stringify(wav)}, 'wav')));`,
      'await pool.closeAudioAnalysis();',
    ].join('\n');
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { PATH: process.env.PATH },
      timeout: 60_000,
    });
    assert.equal(JSON.parse(stdout), null);
  });
});
