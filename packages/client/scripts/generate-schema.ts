// `npm run client:types`: writes src/schema.ts from the OpenAPI document of these sources, the same
// document a server started from them serves at /api/v1/openapi.json (the root CLI prints it).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schemaSource } from './schema-source.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const document = execFileSync(process.execPath, ['bin/labeldesk.js', 'openapi'], {
  cwd: root,
  env: { ...process.env, LABELDESK_FROM_SOURCES: '1' },
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const target = new URL('../src/schema.ts', import.meta.url);
writeFileSync(target, await schemaSource(JSON.parse(document)));
process.stderr.write(`wrote ${fileURLToPath(target)}\n`);
