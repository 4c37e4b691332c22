import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { catalogPages } from './console.catalog.ts';
import { financePages } from './console.finance.ts';
import { keysPages } from './console.keys.ts';
import { overviewPages } from './console.overview.ts';
import { COOKIE_OPTIONS, formOf, SESSION_COOKIE, sendHtml, signedIn } from './console.pages.ts';
import { CONSOLE_SECURITY_POLICY, invitePage, messagePage, signInPage } from './console.render.ts';
import {
  acceptInvite,
  endSession,
  inviteMember,
  type PasswordProblem,
  passwordProblem,
  signIn,
} from './console.sign-in.ts';
import { smartLinkPages } from './console.smart-links.ts';
import { supportPages } from './console.support.ts';
import { teamPages } from './console.team.ts';
import { webhooksPages } from './console.webhooks.ts';

const FORM_BODY_LIMIT = 16 * 1024;

/** The signed-in pages, each registering its routes. */
const PAGE_MODULES = [
  overviewPages,
  catalogPages,
  keysPages,
  webhooksPages,
  smartLinkPages,
  financePages,
  teamPages,
  supportPages,
];

const PASSWORD_PROBLEMS: Record<PasswordProblem, string> = {
  too_short: 'The password must be at least 12 characters long.',
  too_long: 'The password must be at most 256 characters long.',
  mismatch: 'The two passwords differ.',
};

const REFUSED = 'The login or the password is not right.';

const FORM_EXPIRED_PAGE = messagePage(
  'Form expired',
  'This form has expired or did not come from this console. Go back, reload the page and try again.',
  { href: '/console', text: 'Back to the console' },
);

/** A new session replaces any the browser had: its token is never one chosen before sign-in. */
async function startSession(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, session: string) {
  const previous = request.cookies[SESSION_COOKIE];
  if (previous) await endSession(ctx, previous);
  return reply.setCookie(SESSION_COOKIE, session, COOKIE_OPTIONS).redirect('/console', 303);
}

/**
 * The label console at `{BASE_URL}/console`: team members sign in with the password they chose at
 * their invite address, and see the pages their role allows. Every form carries a CSRF token.
 */
export function consoleRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // Pages for people, not the API: they stay out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(fastifyCookie);
    await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
    await app.register(fastifyCsrf, {
      cookieOpts: { ...COOKIE_OPTIONS, signed: false },
      getToken: (request) => formOf(request)._csrf,
    });
    await app.register(fastifyHelmet, {
      contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_SECURITY_POLICY },
      // conventions.ts sends Strict-Transport-Security on HTTPS requests, as for the API.
      strictTransportSecurity: false,
    });
    // A form without its token gets a page; faults go on to the app's handler, which logs them.
    app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
      if (error.code?.startsWith('FST_CSRF')) return sendHtml(reply, 403, FORM_EXPIRED_PAGE);
      throw error;
    });

    app.get('/console/sign-in', async (request, reply) => {
      if (await signedIn(ctx, request)) return reply.redirect('/console', 303);
      return sendHtml(reply, 200, signInPage({ csrfToken: reply.generateCsrf() }));
    });

    app.post('/console/sign-in', { preHandler: app.csrfProtection }, async (request, reply) => {
      const form = formOf(request);
      const login = form.login ?? '';
      const outcome = await signIn(ctx, login, form.password ?? '', request.ip);
      if (outcome.kind === 'signed_in') return startSession(ctx, request, reply, outcome.session);
      const csrfToken = reply.generateCsrf();
      if (outcome.kind === 'limited') {
        reply.header('retry-after', String(outcome.retryAfterS));
        return sendHtml(
          reply,
          429,
          signInPage({ csrfToken, login, error: 'Too many attempts. Try again in 15 minutes.' }),
        );
      }
      return sendHtml(reply, 401, signInPage({ csrfToken, login, error: REFUSED }));
    });

    app.post('/console/sign-out', { preHandler: app.csrfProtection }, async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await endSession(ctx, token);
      return reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS).redirect('/console/sign-in', 303);
    });

    app.get<{ Params: { token: string } }>('/console/invite/:token', async (request, reply) => {
      const member = await inviteMember(ctx, request.params.token);
      if (!member) return sendHtml(reply, 404, expiredInvitePage());
      return sendHtml(
        reply,
        200,
        invitePage({
          csrfToken: reply.generateCsrf(),
          action: request.url,
          memberName: member.name,
          login: member.login,
        }),
      );
    });

    app.post<{ Params: { token: string } }>(
      '/console/invite/:token',
      { preHandler: app.csrfProtection },
      async (request, reply) => {
        const { token } = request.params;
        const member = await inviteMember(ctx, token);
        if (!member) return sendHtml(reply, 404, expiredInvitePage());
        const form = formOf(request);
        const password = form.password ?? '';
        const problem = passwordProblem(password, form.confirmation ?? '');
        if (problem) {
          return sendHtml(
            reply,
            400,
            invitePage({
              csrfToken: reply.generateCsrf(),
              action: request.url,
              memberName: member.name,
              login: member.login,
              error: PASSWORD_PROBLEMS[problem],
            }),
          );
        }
        const session = await acceptInvite(ctx, token, password);
        if (!session) return sendHtml(reply, 404, expiredInvitePage());
        return startSession(ctx, request, reply, session);
      },
    );

    for (const register of PAGE_MODULES) register(app, ctx);
  };
}

function expiredInvitePage(): string {
  return messagePage(
    'Invite address not valid',
    'This invite address has been used or has expired. Ask the label’s operator for a new one.',
    {
      href: '/console/sign-in',
      text: 'Sign in',
    },
  );
}
