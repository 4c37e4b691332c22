import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { RateDecision, RateLimiter } from '../../src/http/rate-limiter.ts';
import { givenArtist, givenRelease, givenTrack } from '../helpers/catalog.ts';
import { SENDER } from '../helpers/ddex.ts';
import {
  bytesLike,
  fromSchema,
  hostileQueryValue,
  hostileSegment,
  type JsonSchema,
  multipartFrom,
  oneIn,
  percentEncode,
} from '../helpers/fuzz.ts';
import { buildHarness, call, givenCaller, givenKey, type Harness, json } from '../helpers/harness.ts';

/**
 * Walks every operation of our own OpenAPI document with hostile input and fails on any 5xx or any
 * error outside `{error, code}`. Replay a failure with the seed and path fast-check prints:
 * `FUZZ_SEED=<seed> node --import tsx --test test/http/fuzz.test.ts`.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 30);
const DISTRIBUTOR_SECRET = 'fuzz-distributor-secret-0123456789abcdef';
const SIGNATURE_HEADER = 'x-distributor-signature';

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema: JsonSchema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  bodies: Record<string, JsonSchema>;
  /** The content types each documented status answers with. */
  responses: Record<string, string[]>;
}

interface World {
  key: string;
  sandboxKey: string;
  linkCode: string;
}

/** Lets every request through: the fuzz is after the handlers, not the rate limit. */
class UnlimitedRateLimiter implements RateLimiter {
  hit(_bucket: string, limit: number, nowMs: number): RateDecision {
    return { allowed: true, limit, remaining: limit, resetAtMs: nowMs };
  }

  async close(): Promise<void> {}
}

interface DocumentOperation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

async function operationsOf(h: Harness, key: string): Promise<Operation[]> {
  const document = json(await call(h, 'GET', '/api/v1/openapi.json', { key })) as {
    paths: Record<string, Record<string, DocumentOperation>>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      bodies: Object.fromEntries(
        Object.entries(operation.requestBody?.content ?? {}).map(([type, { schema }]) => [type, schema]),
      ),
      responses: Object.fromEntries(
        Object.entries(operation.responses).map(([status, { content }]) => [
          status,
          Object.keys(content ?? {}),
        ]),
      ),
    })),
  );
  // Deletions last, so the fixtures are there for the other operations.
  return operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/** A label on Enterprise with one of each object, a live key with every scope and a sandbox key. */
async function givenWorld(h: Harness): Promise<World> {
  const { label, key } = await givenCaller(h, { plan: 'enterprise' });
  const sandboxKey = await givenKey(h, label.id, { sandbox: true });
  const artist = await givenArtist(h, label.id);
  const release = await givenRelease(h, label.id, { artist_id: artist.id });
  await givenTrack(h, label.id, release.id);
  await call(h, 'POST', '/api/v1/webhooks', {
    key,
    payload: { url: 'https://hooks.example.com/labeldesk', events: ['release.live'] },
  });
  const link = await call(h, 'POST', '/api/v1/smart-links', {
    key,
    payload: {
      title: 'Night Drive',
      artist_name: 'Mira Vale',
      release_date: '2026-05-01',
      release_id: release.id,
      targets: [{ platform: 'spotify', url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' }],
    },
  });
  const { smart_link } = json(link) as { smart_link: { code: string } };
  return { key, sandboxKey, linkCode: smart_link.code };
}

function pathFor(operation: Operation, world: World): fc.Arbitrary<string> {
  const segments = operation.parameters
    .filter((parameter) => parameter.in === 'path')
    .map((parameter) => {
      const valid =
        parameter.name === 'address'
          ? fc.constant(world.linkCode)
          : fromSchema(parameter.schema, false).map((value) => percentEncode(String(value)));
      return fc.tuple(
        fc.constant(parameter.name),
        fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostileSegment }),
      );
    });
  const tail = oneIn(
    15,
    fc.integer({ min: 1, max: 2_000 }).map((count) => '/a'.repeat(count)),
  );
  return fc
    .tuple(fc.tuple(...segments), tail)
    .map(
      ([values, extra]) =>
        values.reduce((path, [name, value]) => path.replace(`{${name}}`, value), operation.path) +
        (extra ?? ''),
    );
}

function queryFor(operation: Operation): fc.Arbitrary<string> {
  const pairs = operation.parameters
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => {
      const valid = fromSchema(parameter.schema, false).map((value) => percentEncode(String(value)));
      const value = fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostileQueryValue });
      return fc.option(
        fc
          .array(value, { minLength: 1, maxLength: 2 })
          .map((values) => values.map((v) => `${parameter.name}=${v}`)),
        { freq: 2 },
      );
    });
  const unknown = oneIn(
    8,
    hostileQueryValue.map((value) => [`${value}=${value}`]),
  );
  return fc
    .tuple(fc.tuple(...pairs), unknown)
    .map(([chosen, extra]) => [...chosen.flat(), ...(extra ?? [])].filter(Boolean).join('&'))
    .map((query) => (query ? `?${query}` : ''));
}

interface Body {
  contentType?: string;
  payload?: string | Buffer;
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'image/png',
  ';;;',
];

const BROKEN_JSON = [
  '',
  '{',
  'nul',
  '{"a":}',
  '"\u0000"',
  'null',
  '[]',
  '1e999',
  '{"a":1e999}',
  '{"a":1,"a":2}',
  '\ufeff{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '['.repeat(100_000),
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
  `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
  `{"a":"${'x'.repeat(110_000)}"}`,
];

function jsonBody(schema: JsonSchema): fc.Arbitrary<Body> {
  const text = fromSchema(schema).map((value) => JSON.stringify(value));
  return fc.oneof(
    { weight: 8, arbitrary: text.map((payload) => ({ contentType: 'application/json', payload })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...BROKEN_JSON)
        .map((payload) => ({ contentType: 'application/json', payload })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constant(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))
        .map((payload) => ({ contentType: 'application/json', payload })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(text, fc.constantFrom(...WRONG_CONTENT_TYPES))
        .map(([payload, contentType]) => ({ contentType, payload })),
    },
    { weight: 1, arbitrary: text.map((payload) => ({ payload })) },
  );
}

function formBody(schema: JsonSchema): fc.Arbitrary<Body> {
  const encoded = fromSchema(schema).map((value) =>
    typeof value === 'object' && value !== null
      ? Object.entries(value)
          .map(([name, item]) => `${percentEncode(name)}=${percentEncode(String(item))}`)
          .join('&')
      : percentEncode(String(value)),
  );
  return fc
    .oneof(encoded, fc.constantFrom('%', 'email=%zz', '&&==&&', `email=${'a'.repeat(5_000)}`))
    .map((payload) => ({ contentType: 'application/x-www-form-urlencoded', payload }));
}

function bodyOf(contentType: string, schema: JsonSchema): fc.Arbitrary<Body> {
  if (contentType === 'application/json') return jsonBody(schema);
  if (contentType === 'multipart/form-data') return multipartFrom(schema);
  if (contentType === 'application/x-www-form-urlencoded') return formBody(schema);
  return fc
    .tuple(
      bytesLike(contentType),
      fc.constantFrom(contentType, contentType, 'application/octet-stream', 'image/gif'),
    )
    .map(([payload, sentAs]) => ({ contentType: sentAs, payload }));
}

function bodyFor(operation: Operation): fc.Arbitrary<Body> {
  const documented = Object.entries(operation.bodies).map(([type, schema]) => bodyOf(type, schema));
  // An operation without a body gets one now and then all the same.
  const stray = oneIn(6, jsonBody({ type: 'object' })).map((body) => body ?? {});
  return documented.length > 0 ? fc.oneof(...documented) : stray;
}

/** A header value that is legal on the wire (the client would refuse anything else). */
const headerValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
  fc.integer({ min: 100, max: 8_000 }).map((length) => 'a'.repeat(length)),
);

function headersFor(operation: Operation, world: World): fc.Arbitrary<Record<string, string>> {
  const authorization = fc.oneof(
    { weight: 16, arbitrary: fc.constant(`Bearer ${world.key}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${world.sandboxKey}`) },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: headerValue.map((value) => `Bearer ${value}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('Bearer ', 'Basic Zm9vOmJhcg==', `Bearer svc_${'x'.repeat(500)}`),
    },
  );
  const own = operation.parameters
    .filter((parameter) => parameter.in === 'header')
    .map((parameter) => fc.tuple(fc.constant(parameter.name), headerValue));
  const optional = ['idempotency-key', 'if-none-match', 'if-match', 'accept', 'x-forwarded-for'].map((name) =>
    oneIn(8, fc.tuple(fc.constant(name), headerValue)),
  );
  return fc.tuple(authorization, fc.tuple(...own), fc.tuple(...optional)).map(([auth, mine, chosen]) => ({
    ...(auth && { authorization: auth }),
    ...Object.fromEntries([...mine, ...chosen.filter((header) => header !== null)]),
  }));
}

/** The distributor's signature over the body as sent, now: most reports get past the check. */
function signed(headers: Record<string, string>, payload: string | Buffer | undefined, nowMs: number) {
  if (!(SIGNATURE_HEADER in headers)) return headers;
  const t = Math.floor(nowMs / 1000);
  const v1 = createHmac('sha256', DISTRIBUTOR_SECRET)
    .update(`${t}.`)
    .update(payload ?? '')
    .digest('hex');
  return { ...headers, [SIGNATURE_HEADER]: `t=${t},v1=${v1}` };
}

function requestFor(operation: Operation, world: World, nowMs: number): fc.Arbitrary<InjectOptions> {
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(operation.method) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
  );
  return fc
    .record({
      method,
      path: pathFor(operation, world),
      query: queryFor(operation),
      body: bodyFor(operation),
      headers: headersFor(operation, world),
      sign: fc.boolean(),
    })
    .map(({ method: sent, path, query, body, headers, sign }) => ({
      method: sent as InjectOptions['method'],
      url: `${path}${query}`,
      headers: {
        ...(sign ? signed(headers, body.payload, nowMs) : headers),
        ...(body.contentType !== undefined && { 'content-type': body.contentType }),
      },
      ...(body.payload !== undefined && { payload: body.payload }),
    }));
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * What is wrong with the answer, or null: no 5xx, and every error in the one error shape.
 * `documented` is the operation the request's method and path name, when there is one.
 */
function faultOf(documented: Operation | undefined, response: LightMyRequestResponse): string | null {
  const status = response.statusCode;
  if (status >= 500) return `answered ${status}`;
  if (status < 400) return null;
  const types = documented?.responses[String(status)] ?? [];
  // The public link pages answer their errors as HTML pages, as documented.
  if (types.length > 0 && !types.includes('application/json')) return null;
  if (status === 405 && !response.headers.allow) return 'answered 405 without Allow';
  if (!String(response.headers['content-type']).startsWith('application/json')) {
    return `answered ${status} as ${response.headers['content-type']}`;
  }
  const body = parsedOrNull(response.body);
  const shaped =
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    'code' in body &&
    typeof body.error === 'string' &&
    typeof body.code === 'string';
  return shaped ? null : `answered ${status} outside the error shape`;
}

test(`hostile input to every operation answers no 5xx and only {error, code} errors (seed ${SEED})`, async (t) => {
  const h = await buildHarness(t, {
    limiter: new UnlimitedRateLimiter(),
    // DDEX export set up, so that hostile input reaches the export itself (unset, it is a 503 by design).
    env: { DISTRIBUTOR_SECRET, DDEX_PARTY_ID: SENDER.id, DDEX_PARTY_NAME: SENDER.name },
    resolveHost: async () => [{ address: '93.184.215.14', family: 4 }],
  });
  const world = await givenWorld(h);
  const operations = await operationsOf(h, world.key);
  const byMethodAndPath = new Map(
    operations.map((operation) => [`${operation.method} ${operation.path}`, operation]),
  );
  for (const operation of operations) {
    await t.test(`${operation.method} ${operation.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestFor(operation, world, h.clock.now().getTime()), async (request) => {
          const response = await h.app.inject(request);
          const fault = faultOf(byMethodAndPath.get(`${request.method} ${operation.path}`), response);
          if (fault !== null) throw new Error(`${fault}: ${response.body.slice(0, 300)}`);
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, includeErrorInReport: true },
      );
    });
  }
});
