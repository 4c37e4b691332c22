// The committed src/schema.ts is what openapi-typescript makes of the OpenAPI document a running server
// serves: a change of the API that was not regenerated fails here, naming the command that fixes it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { schemaSource } from '../scripts/schema-source.ts';
import { type Served, serve } from './served.ts';

let served: Served;
before(async () => {
  served = await serve('client_drift');
});
after(() => served?.dispose());

test('src/schema.ts is generated from the served /api/v1/openapi.json, byte for byte', async () => {
  const response = await served.fetch(new Request(`${served.origin}/api/v1/openapi.json`));
  assert.equal(response.status, 200);
  const generated = await schemaSource(await response.json());
  const committed = readFileSync(new URL('../src/schema.ts', import.meta.url), 'utf8');
  if (generated !== committed) {
    const lines = { generated: generated.split('\n'), committed: committed.split('\n') };
    const first = lines.generated.findIndex((line, i) => line !== lines.committed[i]);
    assert.fail(
      `packages/client/src/schema.ts differs from what the server's OpenAPI document generates (first at line ${first + 1}:\n` +
        `  committed: ${lines.committed[first]}\n  generated: ${lines.generated[first]}).\n` +
        'Run `npm run client:types` at the repository root and commit packages/client/src/schema.ts.',
    );
  }
});
