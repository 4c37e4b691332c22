import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifySchema, RouteShorthandOptions } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { linkCountsOf } from './link-counts.ts';
import {
  type LinkPage,
  linkPageSecurityPolicy,
  NOT_FOUND_PAGE_SECURITY_POLICY,
  type PresaveState,
  renderLinkPage,
  renderNotFoundPage,
} from './link-pages.render.ts';
import {
  linkPage,
  openServedLink,
  type PresaveOutcome,
  recordClick,
  recordView,
  signUpForPresave,
} from './link-pages.service.ts';
import { describeVisit, isPersonVisit } from './link-pages.visitor.ts';
import { smartLinkUrl } from './smart-links.addresses.ts';

const HTML = 'text/html; charset=utf-8';
/** The platforms may see that a visit came from our link host, never which link (the path). */
const REFERRER_POLICY = 'strict-origin-when-cross-origin';
/** The form posts one short field; anything larger is not a sign-up. */
const FORM_BODY_LIMIT = 2048;

const Address = Type.String({ description: "The link's code or slug", examples: ['Kq7fM2x'] });
/** What a code or a slug can be; anything else is no link's address (and never reaches the database). */
const ADDRESS = /^[A-Za-z0-9-]{3,64}$/;
/** Sign-ups one client address may send a minute: each one publishes an event. */
const PRESAVES_PER_ADDRESS_PER_MINUTE = 10;
const PageParams = Type.Object({ address: Address });
const GoParams = Type.Object({
  address: Address,
  platform: Type.String({ maxLength: 40, examples: ['spotify'] }),
});
const PresaveForm = Type.Object({
  email: Type.Optional(Type.String({ description: 'The fan’s e-mail address' })),
});

const HtmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() } },
});

/** Where the pages live: the path of SHORT_LINK_BASE, and its host when that differs from the API's. */
export function pageMount(config: Pick<Config, 'baseUrl' | 'shortLinkBase'>): {
  prefix: string;
  host: string | null;
} {
  const short = new URL(config.shortLinkBase);
  const api = new URL(config.baseUrl);
  return {
    prefix: short.pathname.replace(/\/+$/, ''),
    host: short.host === api.host ? null : short.host,
  };
}

function sendPage(
  reply: FastifyReply,
  status: number,
  html: string | Buffer,
  securityPolicy: string,
): FastifyReply {
  return reply
    .code(status)
    .type(HTML)
    .header('content-security-policy', securityPolicy)
    .header('referrer-policy', REFERRER_POLICY)
    .send(html);
}

function sendLinkPage(reply: FastifyReply, status: number, page: LinkPage): FastifyReply {
  return sendPage(reply, status, renderLinkPage(page), linkPageSecurityPolicy(page));
}

function notFound(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, renderNotFoundPage(), NOT_FOUND_PAGE_SECURITY_POLICY);
}

/** The link at a page address, or null for an address no link can have. */
function openAddress(ctx: AppContext, address: string) {
  return ADDRESS.test(address) ? openServedLink(ctx, address) : null;
}

/** `utm_source` as sent once (a repeated parameter counts by its first value). */
function utmSource(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.utm_source;
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

const PRESAVE_STATUS: Readonly<Record<PresaveOutcome, number>> = {
  signed_up: 200,
  repeat: 200,
  closed: 409,
  invalid: 400,
};

/** The page's pre-save part after a sign-up: a confirmation, the form with a message, or closed. */
function presaveAfter(page: LinkPage, outcome: PresaveOutcome, email: string): PresaveState {
  if (outcome === 'signed_up' || outcome === 'repeat') return { kind: 'done' };
  if (outcome === 'invalid' && page.presave.kind === 'form') {
    return { ...page.presave, error: 'Please enter a valid e-mail address.', email };
  }
  return page.presave;
}

/**
 * The public smart-link pages: no key, server-rendered, counted. A view is counted when a person
 * opens the page (not a bot, a link preview, a prefetch or a HEAD request); a click is counted on
 * the way through our redirect to the platform.
 */
export function linkPagesRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const { prefix, host } = pageMount(ctx.config);
  const constraints = host === null ? {} : { constraints: { host } };
  const ownHosts = [new URL(ctx.config.shortLinkBase).hostname, new URL(ctx.config.baseUrl).hostname];
  // Generic in the schema, so that each handler's request is typed from its own schema.
  const options = <S extends FastifySchema>(schema: S, config: RouteShorthandOptions['config'] = {}) => ({
    ...constraints,
    schema,
    config,
  });

  return async (app) => {
    // The counts of the last moments are written before the app closes (SIGTERM drains into this).
    app.addHook('onClose', () => linkCountsOf(ctx).close());
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    app.get(
      `${prefix}/:address`,
      options({
        tags: ['smart-links'],
        operationId: 'openSmartLinkPage',
        summary: 'The public page of a smart link (HTML; served at SHORT_LINK_BASE)',
        description:
          'No key. Counts a view unless the visitor is a bot or link preview, the request is a prefetch or HEAD. The query parameter `utm_source` names the source; other parameters are ignored.',
        params: PageParams,
        response: { 200: HtmlPage('The page'), 404: HtmlPage('No enabled link has this address') },
      }),
      async (request, reply) => {
        const { address } = request.params;
        const served = await openAddress(ctx, address);
        if (!served) return notFound(reply);
        if (isPersonVisit(request.method, request.headers)) {
          recordView(
            ctx,
            served.link,
            describeVisit(request.headers, utmSource(request.query), ownHosts),
            request.ip,
          );
        }
        // Tagged as it was rendered: the body is not hashed again for every view.
        return sendPage(
          reply.header('etag', served.page.etag),
          200,
          served.page.html,
          served.page.securityPolicy,
        );
      },
    );

    app.get(
      `${prefix}/:address/go/:platform`,
      options({
        tags: ['smart-links'],
        operationId: 'followSmartLinkTarget',
        summary: "A smart link's button: counts the click and redirects to the platform",
        params: GoParams,
        response: {
          302: { description: 'To the target address (`Location`)' },
          404: HtmlPage('No enabled link has this address, or it has no target on this platform'),
        },
      }),
      async (request, reply) => {
        const { address, platform } = request.params;
        const open = await openAddress(ctx, address);
        const target = open?.targets.find((candidate) => candidate.platform === platform);
        if (!open || !target) return notFound(reply);
        if (isPersonVisit(request.method, request.headers)) recordClick(ctx, open.link, target, request.ip);
        return reply.redirect(target.url, 302);
      },
    );

    app.get(
      `${prefix}/:address/presave`,
      options({
        tags: ['smart-links'],
        operationId: 'openSmartLinkPresaveAddress',
        summary: "The pre-save form's address opened directly (a reload or a shared address): to the page",
        params: PageParams,
        response: {
          302: { description: 'To the page (`Location`)' },
          404: HtmlPage('No enabled link has this address'),
        },
      }),
      async (request, reply) => {
        const { address } = request.params;
        const open = await openAddress(ctx, address);
        if (!open) return notFound(reply);
        return reply.redirect(smartLinkUrl(ctx.config, open.link), 302);
      },
    );

    app.post(
      `${prefix}/:address/presave`,
      options(
        {
          consumes: ['application/x-www-form-urlencoded'],
          tags: ['smart-links'],
          operationId: 'presaveSmartLink',
          summary: "The page's pre-save form (application/x-www-form-urlencoded `email`)",
          description:
            'Signs the address up for the release while the release date is in the future. The address is stored encrypted and is never sent in events; a repeat sign-up is not counted twice.',
          params: PageParams,
          body: PresaveForm,
          response: {
            200: HtmlPage('Signed up (or already signed up): the page with a confirmation'),
            400: HtmlPage('Not an e-mail address: the page with the form and a message'),
            404: HtmlPage('No enabled link has this address'),
            409: HtmlPage('Pre-saves are closed: the release is out'),
          },
        },
        { perAddressPerMinute: PRESAVES_PER_ADDRESS_PER_MINUTE },
      ),
      async (request, reply) => {
        const { address } = request.params;
        const email = request.body.email ?? '';
        const open = await openAddress(ctx, address);
        if (!open) return notFound(reply);
        const outcome = await signUpForPresave(ctx, open.link, email);
        const page = linkPage(ctx, open);
        const presave = presaveAfter(page, outcome, email);
        return sendLinkPage(reply, PRESAVE_STATUS[outcome], { ...page, presave });
      },
    );
  };
}
