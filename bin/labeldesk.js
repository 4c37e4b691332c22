#!/usr/bin/env node
// The operator command. It runs the compiled build in dist/ (made by `npm run build`, and by `npm install`
// through the `prepare` script). A checkout without dist/ runs the TypeScript sources through tsx, and so
// does LABELDESK_FROM_SOURCES=1: the tests set it, so that they exercise the sources a developer has just
// edited rather than a build that may be older.
import { existsSync } from 'node:fs';

const COMPILED = new URL('../dist/main.js', import.meta.url);

async function loadMain() {
  if (process.env.LABELDESK_FROM_SOURCES !== '1' && existsSync(COMPILED)) return import(COMPILED.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/main.ts');
}

const { main } = await loadMain();
await main(process.argv);
