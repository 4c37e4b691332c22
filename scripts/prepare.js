// `npm install` and `npm ci` run this (the `prepare` script) to build dist/, which bin/labeldesk.js runs.
// An install without the devDependencies (`npm ci --omit=dev`) has no TypeScript compiler: rather than
// fail the install, it skips the build, and labeldesk runs its sources through tsx (a slower start). A
// production install that keeps the build installs everything, then prunes: `npm ci && npm prune --omit=dev`.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

function hasTypeScript() {
  try {
    createRequire(import.meta.url).resolve('typescript');
    return true;
  } catch {
    return false;
  }
}

if (hasTypeScript()) {
  const { status } = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  process.exitCode = status ?? 1;
} else {
  // A dist/ left by an earlier install was built from older sources: running it would be wrong.
  rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
  process.stderr.write(
    'labeldesk: no TypeScript compiler (devDependencies omitted), so no build in dist/: bin/labeldesk.js runs the sources through tsx\n',
  );
}
