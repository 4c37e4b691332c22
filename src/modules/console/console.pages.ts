import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { ApiError } from '../../errors.ts';
import type { Html } from '../../lib/html.ts';
import { getLabel } from '../labels/index.ts';
import { type Permission, ROLES, roleAllows } from '../team/index.ts';
import {
  type Frame,
  forbiddenContent,
  type NavItem,
  refusalContent,
  signedInPage,
} from './console.render.ts';
import { sessionMember } from './console.sign-in.ts';
import type { SignInMember } from './console.store.ts';

/*
 * What every signed-in console page shares: the session, the navigation the member's role allows,
 * the 403 page for the rest, and how a page answers. Each page is a module of its own
 * (console.overview.ts, ...) that registers its routes through `consoleRoute`.
 */

const HTML = 'text/html; charset=utf-8';
export const SESSION_COOKIE = 'labeldesk_session';
export const COOKIE_OPTIONS = { path: '/console', httpOnly: true, secure: true, sameSite: 'lax' } as const;

/** The console's pages, in navigation order, with the permission each needs. */
export const PAGES = {
  overview: { name: 'Overview', path: '/console', permission: 'catalog.view' },
  catalog: { name: 'Catalog', path: '/console/catalog', permission: 'catalog.view' },
  keys: { name: 'API keys', path: '/console/keys', permission: 'settings.manage' },
  webhooks: { name: 'Webhooks', path: '/console/webhooks', permission: 'settings.manage' },
  smartLinks: { name: 'Smart links', path: '/console/smart-links', permission: 'stats.view' },
  finance: { name: 'Finance', path: '/console/finance', permission: 'finance.view' },
  team: { name: 'Team', path: '/console/team', permission: 'members.manage' },
  support: { name: 'Support', path: '/console/support', permission: 'support.write' },
} as const satisfies Record<string, { name: string; path: string; permission: Permission }>;

export type PageName = keyof typeof PAGES;

export interface SignedIn {
  member: SignInMember;
  label: LabelRow;
}

export type Form = Record<string, string | undefined>;

/** What a page's handler answers: its content (200), content with a status, or a redirect (303). */
export type PageAnswer = Html | { status: number; content: Html } | { redirect: string };

export function formOf(request: FastifyRequest): Form {
  return (request.body ?? {}) as Form;
}

/** Every value posted under `name`: a checkbox group sends one per ticked box. */
export function formValues(request: FastifyRequest, name: string): string[] {
  const value: unknown = (request.body as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

export function sendHtml(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type(HTML).send(page);
}

/**
 * Runs a service call a form asked for: what the service refuses (an ApiError) is answered, to be
 * shown next to the form with the status the API would give; any other failure is a fault and goes
 * on to the app's error handler.
 */
export async function refusalOr<T>(work: () => Promise<T>): Promise<T | ApiError> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** The member of the request's session, or null (the caller sends the browser to sign in). */
export async function signedIn(ctx: AppContext, request: FastifyRequest): Promise<SignedIn | null> {
  const token = request.cookies[SESSION_COOKIE];
  const member = token ? await sessionMember(ctx, token) : null;
  if (!member) return null;
  return { member, label: await getLabel(ctx, member.label_id) };
}

function frameOf(reply: FastifyReply, current: PageName, { member, label }: SignedIn): Frame {
  const nav: NavItem[] = Object.entries(PAGES)
    .filter(([, page]) => roleAllows(member.role, page.permission))
    .map(([name, page]) => ({ name: page.name, href: page.path, current: name === current }));
  return {
    labelName: label.name,
    memberName: `${member.name} (${ROLES[member.role].title})`,
    nav,
    csrfToken: reply.generateCsrf(),
  };
}

function refusalTitle(error: ApiError): string {
  return error.status === 404 ? 'Not found' : 'Not done';
}

/**
 * A handler of one of the console's pages (its GET, or a form it posts): without a session the
 * browser is sent to sign in; a member whose role lacks `permission` (the page's own unless said)
 * gets a 403 page; else `answer` runs, with the page's CSRF token for its forms. POST routes add
 * `app.csrfProtection` as their preHandler.
 */
export function consoleRoute<Route extends RouteGenericInterface = RouteGenericInterface>(
  ctx: AppContext,
  page: PageName,
  title: string,
  answer: (who: SignedIn, request: FastifyRequest<Route>, csrfToken: string) => Promise<PageAnswer>,
  permission: Permission = PAGES[page].permission,
) {
  return async (request: FastifyRequest<Route>, reply: FastifyReply) => {
    const who = await signedIn(ctx, request);
    if (!who) return reply.redirect('/console/sign-in', 303);
    const frame = frameOf(reply, page, who);
    if (!roleAllows(who.member.role, permission)) {
      const content = forbiddenContent(ROLES[who.member.role].title);
      return sendHtml(reply, 403, signedInPage(frame, 'Not available to your role', content));
    }
    // A refusal the page did not show itself (another label's id, a query too short) is the page.
    const answered = await refusalOr(() => answer(who, request, frame.csrfToken));
    if (answered instanceof ApiError) {
      return sendHtml(
        reply,
        answered.status,
        signedInPage(frame, refusalTitle(answered), refusalContent(answered)),
      );
    }
    if ('redirect' in answered) return reply.redirect(answered.redirect, 303);
    if ('status' in answered)
      return sendHtml(reply, answered.status, signedInPage(frame, title, answered.content));
    return sendHtml(reply, 200, signedInPage(frame, title, answered));
  };
}

/** The id in a console address; 0 (no object has it: the service answers 404) unless a positive integer. */
export function pathId(text: string): number {
  const id = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(id) && id > 0 ? id : 0;
}
