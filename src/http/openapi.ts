import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { API_VERSION } from './conventions.ts';
import { ErrorResponse } from './schemas.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/v1/docs';

const RATE_HEADERS_NOTE =
  'Keyed responses carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset; every response carries X-API-Version, and Cache-Control: no-store except a cover file (named by its content, cached as immutable).';

type DocSchema = FastifySchema & {
  response?: Record<string, unknown>;
  security?: unknown;
  description?: string;
  'x-required-scope'?: string;
};

/**
 * The reference page's Content-Security-Policy: Swagger UI's scripts and style sheets are files it
 * serves itself (no inline script or style), its icons are data: URLs, and "Try it out" calls the
 * API at BASE_URL. Nothing may frame it.
 */
function docsSecurityPolicy(baseUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(baseUrl).origin}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Adds to the document what the hooks do for every route: security, scope, and the errors they answer. */
function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  const doc: DocSchema = { ...(schema as DocSchema) };
  const access = route.config?.access;
  const responses: Record<string, unknown> = { ...(doc.response ?? {}) };
  const add = (status: string, description: string) => {
    if (!(status in responses)) responses[status] = ErrorResponse(description);
  };
  if (doc.querystring || doc.body || doc.params)
    add('400', 'Invalid input: `code: invalid` with the offending `field`');
  if (access === undefined) {
    doc.security = [];
  } else {
    doc.security = [{ bearerAuth: [] }];
    add('401', 'Missing, malformed, unknown or revoked key: `code: unauthorized`');
    add(
      '403',
      access === 'any_key'
        ? 'Request address outside the key allow-list: `ip_not_allowed`'
        : `Key lacks the scope (\`forbidden\` with \`required_scope\`), the plan does not allow it (\`plan_required\`), or the address is not allowed (\`ip_not_allowed\`)`,
    );
    add('429', 'Rate limit exceeded: `rate_limited`, with Retry-After in seconds');
    const scopeNote = access === 'any_key' ? 'Any valid key.' : `Scope: \`${access}\`.`;
    doc.description = [doc.description, scopeNote].filter(Boolean).join('\n\n');
    if (access !== 'any_key') doc['x-required-scope'] = access;
  }
  if (route.config?.perAddressPerMinute !== undefined) {
    add(
      '429',
      `More than ${route.config.perAddressPerMinute} requests a minute from one address: \`rate_limited\``,
    );
  }
  if (doc.params) add('404', "No such object in the caller's workspace: `not_found`");
  doc.response = responses;
  return { schema: doc, url };
}

/** The OpenAPI 3.0 document, generated from the route schemas, and a reference page that renders it. */
export const openapiPlugin = fp(
  async (app: FastifyInstance, opts: { baseUrl: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Label Catalog and Release Distribution API',
          version: API_VERSION,
          description: `REST + JSON API for a record label: catalog, releases, smart links, analytics, finance, team, support and events. ${RATE_HEADERS_NOTE}`,
          license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
        },
        servers: [{ url: opts.baseUrl, description: 'This server' }],
        components: {
          securitySchemes: {
            bearerAuth: {
              type: 'http',
              scheme: 'bearer',
              description:
                'API key (`svc_…`, or `svc_test_…` for the sandbox) as `Authorization: Bearer <API_KEY>`',
            },
          },
        },
        tags: [
          { name: 'identity', description: 'Status, plans, the calling key and its label' },
          { name: 'team', description: "The label's staff and roles" },
          { name: 'lookups', description: 'Reference lists for catalog fields' },
          { name: 'artists', description: "The label's artists" },
          { name: 'releases', description: 'Releases: drafts, covers, submission, the full card, history' },
          { name: 'tracks', description: 'Tracks with audio, lyrics and credits' },
          { name: 'search', description: 'Catalog-wide search and the CSV export' },
          { name: 'reports', description: 'Catalog health' },
          { name: 'smart-links', description: 'Smart links: management, UPC lookup, statistics' },
          { name: 'analytics', description: 'Label summary, link traffic, and one release at a glance' },
          {
            name: 'finance',
            description: 'Balance, payouts, withdrawals and royalty statement reports (read-only)',
          },
          { name: 'support', description: 'Takedown requests and messages to support' },
          { name: 'events', description: 'The polled event feed' },
          {
            name: 'webhooks',
            description: 'Signed deliveries of events: addresses, tests, the delivery log',
          },
          {
            name: 'distributor',
            description: "The distributor's signed platform reports (no API key; DISTRIBUTOR_SECRET)",
          },
        ],
      },
      transform: documentRoute,
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    });
    app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
    await app.register(async (docs) => {
      // The page's static assets come with caching headers of their own; the API's rule wins.
      docs.addHook('onSend', async (_request, reply, payload) => {
        reply.header('cache-control', 'no-store');
        reply.header('referrer-policy', 'no-referrer');
        return payload;
      });
      await docs.register(swaggerUi, {
        routePrefix: DOCS_PATH,
        // The base layout leaves out Swagger's top bar, a logo (an SVG with an inline style the
        // policy refuses) and an address box for other documents.
        uiConfig: { url: OPENAPI_PATH, layout: 'BaseLayout' },
        staticCSP: docsSecurityPolicy(opts.baseUrl),
      });
    });
  },
  { name: 'openapi' },
);
