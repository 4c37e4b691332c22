import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BASE_URL, buildHarness, call, json } from '../helpers/harness.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  security?: Array<Record<string, string[]>>;
  'x-required-scope'?: string;
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}

interface Document {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string }>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, { properties: Record<string, unknown> }>;
  };
  paths: Record<string, Record<string, Operation>>;
}

async function loadDocument(t: Parameters<typeof buildHarness>[0]): Promise<Document> {
  const h = await buildHarness(t);
  const response = await call(h, 'GET', '/api/v1/openapi.json');
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return json(response) as Document;
}

test('the OpenAPI 3.0 document describes the server, its bearer security and the error shape', async (t) => {
  const doc = await loadDocument(t);
  assert.equal(doc.openapi, '3.0.3');
  assert.equal(doc.info.version, '1.1.0');
  assert.deepEqual(doc.servers, [{ url: BASE_URL, description: 'This server' }]);
  assert.deepEqual(Object.keys(doc.components.securitySchemes), ['bearerAuth']);
  assert.deepEqual(Object.keys(doc.components.schemas.Error?.properties ?? {}).slice(0, 3), [
    'error',
    'code',
    'field',
  ]);
});

test('every operation has an id, a summary, its security and scope, and its error responses', async (t) => {
  const doc = await loadDocument(t);
  const expected: Record<string, { scope: string | null; errors: string[] }> = {
    'GET /api/v1/status': { scope: null, errors: ['429'] },
    'GET /api/v1/plans': { scope: null, errors: [] },
    'GET /api/v1/me': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/me/usage': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/platforms': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/lookups/genres': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/lookups/countries': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/lookups/languages': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/lookups/contributor-roles': { scope: 'any_key', errors: ['401', '403', '429'] },
    'GET /api/v1/team': { scope: 'team:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/finance/summary': { scope: 'finance:read', errors: ['401', '403', '429'] },
    'GET /api/v1/finance/payouts': { scope: 'finance:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/finance/withdrawals': { scope: 'finance:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/finance/platforms': { scope: 'finance:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/finance/countries': { scope: 'finance:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/finance/statements': { scope: 'finance:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/finance/lines': { scope: 'finance:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/tracks': { scope: 'catalog:read', errors: ['400', '401', '403', '404', '429'] },
    'GET /api/v1/search': { scope: 'catalog:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/catalog/export.csv': { scope: 'catalog:read', errors: ['401', '403', '429'] },
    'GET /api/v1/reports/catalog-health': { scope: 'catalog:read', errors: ['401', '403', '429'] },
    'POST /api/v1/releases/{id}/tracks': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '413', '415', '429'],
    },
    'GET /api/v1/releases/{id}/tracks/{trackId}': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'PATCH /api/v1/releases/{id}/tracks/{trackId}': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'PUT /api/v1/releases/{id}/tracks/{trackId}/audio': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '413', '415', '429'],
    },
    'DELETE /api/v1/releases/{id}/tracks/{trackId}': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'GET /api/v1/releases/{id}/tracks/{trackId}/lyrics': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'PUT /api/v1/releases/{id}/tracks/{trackId}/lyrics': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'GET /api/v1/releases/{id}/tracks/{trackId}/credits': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'PUT /api/v1/releases/{id}/tracks/{trackId}/credits': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'PUT /api/v1/releases/{id}/cover': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '413', '415', '429'],
    },
    'GET /media/covers/{file}': { scope: null, errors: ['400', '404'] },
    'POST /distributor/v1/reports': {
      scope: null,
      errors: ['400', '401', '404', '409', '413', '415', '429'],
    },
    'GET /api/v1/artists': { scope: 'catalog:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/artists/{id}': { scope: 'catalog:read', errors: ['400', '401', '403', '404', '429'] },
    'GET /api/v1/artists/{id}/releases': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'POST /api/v1/artists': { scope: 'catalog:write', errors: ['400', '401', '403', '409', '429'] },
    'PATCH /api/v1/artists/{id}': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'GET /api/v1/releases': { scope: 'catalog:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/releases/{id}': { scope: 'catalog:read', errors: ['400', '401', '403', '404', '429'] },
    'POST /api/v1/releases': { scope: 'catalog:write', errors: ['400', '401', '403', '409', '429'] },
    'PATCH /api/v1/releases/{id}': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'DELETE /api/v1/releases/{id}': {
      scope: 'catalog:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'GET /api/v1/events': { scope: 'catalog:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/releases/{id}/dsp-status': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'POST /api/v1/releases/{id}/validate': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'GET /api/v1/releases/{id}/ddex': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '409', '429', '503'],
    },
    'POST /api/v1/releases/{id}/submit': {
      scope: 'releases:submit',
      errors: ['400', '401', '403', '404', '409', '428', '429'],
    },
    'GET /api/v1/releases/{id}/history': {
      scope: 'catalog:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'POST /api/v1/releases/{id}/takedown-request': {
      scope: 'support:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'POST /api/v1/support': { scope: 'support:write', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/support/requests': { scope: 'support:write', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/analytics/releases/{id}': {
      scope: 'stats:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'GET /api/v1/analytics/summary': { scope: 'stats:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/analytics/traffic': { scope: 'stats:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/smart-links': { scope: 'links:read', errors: ['400', '401', '403', '429'] },
    'GET /api/v1/smart-links/{id}': { scope: 'links:read', errors: ['400', '401', '403', '404', '429'] },
    'POST /api/v1/smart-links/lookup': { scope: 'links:read', errors: ['400', '401', '403', '404', '429'] },
    'POST /api/v1/smart-links': { scope: 'links:write', errors: ['400', '401', '403', '429'] },
    'PATCH /api/v1/smart-links/{id}': {
      scope: 'links:write',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'DELETE /api/v1/smart-links/{id}': { scope: 'links:write', errors: ['400', '401', '403', '404', '429'] },
    'GET /api/v1/smart-links/{id}/stats': {
      scope: 'stats:read',
      errors: ['400', '401', '403', '404', '429'],
    },
    'GET /l/{address}': { scope: null, errors: [] },
    'GET /l/{address}/go/{platform}': { scope: null, errors: [] },
    'POST /l/{address}/presave': { scope: null, errors: [] },
    'GET /l/{address}/presave': { scope: null, errors: [] },
    'GET /api/v1/webhooks/events': { scope: 'any_key', errors: ['401', '429'] },
    'GET /api/v1/webhooks': { scope: 'webhooks:manage', errors: ['401', '403', '429'] },
    'POST /api/v1/webhooks': { scope: 'webhooks:manage', errors: ['400', '401', '403', '429'] },
    'PATCH /api/v1/webhooks/{id}': { scope: 'webhooks:manage', errors: ['400', '401', '403', '404', '429'] },
    'DELETE /api/v1/webhooks/{id}': { scope: 'webhooks:manage', errors: ['400', '401', '403', '404', '429'] },
    'POST /api/v1/webhooks/{id}/test': {
      scope: 'webhooks:manage',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'GET /api/v1/webhooks/{id}/deliveries': {
      scope: 'webhooks:manage',
      errors: ['400', '401', '403', '404', '429'],
    },
    'POST /api/v1/webhooks/{id}/rotate-secret': {
      scope: 'webhooks:manage',
      errors: ['400', '401', '403', '404', '429'],
    },
    'POST /api/v1/webhooks/{id}/redeliver': {
      scope: 'webhooks:manage',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
    'POST /api/v1/webhooks/{id}/recover': {
      scope: 'webhooks:manage',
      errors: ['400', '401', '403', '404', '409', '429'],
    },
  };
  const seen: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      seen.push(name);
      const want = expected[name];
      assert.ok(want, `unexpected operation ${name}`);
      assert.ok(operation.operationId, name);
      assert.ok(operation.summary, name);
      const success = ['200', '201', '202', '302'].find((status) => operation.responses[status]);
      assert.ok(success, name);
      if (want.scope === null) {
        assert.deepEqual(operation.security, [], name);
      } else {
        assert.deepEqual(operation.security, [{ bearerAuth: [] }], name);
        assert.equal(operation['x-required-scope'], want.scope === 'any_key' ? undefined : want.scope, name);
      }
      for (const status of want.errors) {
        const schema = operation.responses[status]?.content?.['application/json']?.schema;
        assert.deepEqual(schema, { $ref: '#/components/schemas/Error' }, `${name} ${status}`);
      }
    }
  }
  assert.deepEqual(seen.sort(), Object.keys(expected).sort());
});

test('response schemas match what the routes return', async (t) => {
  const doc = await loadDocument(t);
  const me = doc.paths['/api/v1/me']?.get?.responses['200']?.content?.['application/json']?.schema as {
    required: string[];
  };
  assert.deepEqual(me.required, ['label', 'key', 'plan', 'rate_limit', 'api_version', 'docs', 'openapi']);
  const team = doc.paths['/api/v1/team']?.get?.responses['200']?.content?.['application/json']?.schema as {
    required: string[];
  };
  assert.deepEqual(team.required, ['members', 'seats', 'page', 'per_page', 'total']);
});

test('/api/v1/docs renders a reference page without a key', async (t) => {
  const h = await buildHarness(t);
  let response = await call(h, 'GET', '/api/v1/docs');
  if (response.statusCode === 302) response = await call(h, 'GET', String(response.headers.location));
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(response.body, /<html/i);
  assert.equal(response.headers['x-api-version'], '1.1.0');
});
