import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { ROLE_NAMES, type Role } from '../../db/values.ts';
import { ApiError, errors } from '../../errors.ts';
import { MAX_PER_PAGE } from '../../http/pagination.ts';
import { type Html, html } from '../../lib/html.ts';
import {
  addMember,
  getMember,
  isRole,
  listTeam,
  type MemberView,
  ROLES,
  removeMember,
  roleAllows,
} from '../team/index.ts';
import {
  consoleRoute,
  type Form,
  formOf,
  type PageAnswer,
  refusalOr,
  type SignedIn,
} from './console.pages.ts';
import { refusalMessage, shownOnce } from './console.render.ts';
import { createInvite } from './console.sign-in.ts';

/**
 * The Team page: the label's members and seats, "Invite member" (the same two calls as
 * `labeldesk member add`: the member, then their invite address, shown once) and "Remove".
 */

/** Owners and administrators have `label.admin`: only a member who has it may make or remove one. */
const ADMIN_PERMISSION = 'label.admin';

function mayManageRole(who: SignedIn, role: Role): boolean {
  return roleAllows(who.member.role, ADMIN_PERMISSION) || !roleAllows(role, ADMIN_PERMISSION);
}

interface TeamView {
  csrfToken: string;
  self: string;
  roles: readonly Role[];
  form?: Form;
  refusal?: ApiError;
  notice?: Html;
}

async function teamContent(ctx: AppContext, label: LabelRow, view: TeamView): Promise<Html> {
  const team = await listTeam(ctx, label, { limit: MAX_PER_PAGE, offset: 0 });
  const seats = `${team.seats.used} of ${team.seats.max ?? 'unlimited'} seats used`;
  const more =
    team.total > team.members.length
      ? html`<p class="muted">The first ${team.members.length} members of ${team.total}.</p>`
      : '';
  return html`${view.notice ?? ''}<section aria-labelledby="members"><h2 id="members">Members</h2>
<p>${seats}.</p>
<table><thead><tr><th>Name</th><th>Login</th><th>Role</th><th>Last activity</th><th>Action</th></tr></thead>
<tbody>${team.members.map((member) => memberRow(member, view))}</tbody></table>${more}</section>
${inviteForm(view)}`;
}

function memberRow(member: MemberView, view: TeamView): Html {
  const action =
    member.login === view.self
      ? html`<span class="muted">You</span>`
      : view.roles.includes(member.role)
        ? html`<form method="post" action="/console/team/remove"><input type="hidden" name="_csrf" value="${view.csrfToken}"><input type="hidden" name="login" value="${member.login}"><button type="submit">Remove</button></form>`
        : '';
  return html`<tr><td>${member.name}</td><td>${member.login}</td><td>${member.role_title}</td><td>${member.last_seen_at ?? 'never'}</td><td>${action}</td></tr>`;
}

function inviteForm({ csrfToken, roles, form = {}, refusal }: TeamView): Html {
  const options = roles.map(
    (role) =>
      html`<option value="${role}"${form.role === role ? html` selected` : ''}>${ROLES[role].title}</option>`,
  );
  return html`<section aria-labelledby="invite"><h2 id="invite">Invite a member</h2>
<form class="stack" method="post" action="/console/team/invite">
<input type="hidden" name="_csrf" value="${csrfToken}">
${refusal ? refusalMessage(refusal) : ''}
<label>Login <input name="login" autocomplete="off" required value="${form.login ?? ''}"></label>
<label>Name <input name="name" autocomplete="off" required value="${form.name ?? ''}"></label>
<label>Role <select name="role" required>${options}</select></label>
<label>E-mail <input name="email" type="email" autocomplete="off" value="${form.email ?? ''}"></label>
<button type="submit">Invite member</button>
</form></section>`;
}

function invitedNotice(member: MemberView, invite: { invite_url: string; expires_at: string }): Html {
  return html`<section aria-labelledby="invited" role="status"><h2 id="invited">${member.name} was added as ${member.role_title}</h2>
<p>Give them this address: they choose a password there and are signed in. It works once, until ${invite.expires_at}, and is not shown again.</p>
${shownOnce('invite-address', 'Invite address', invite.invite_url, 'Copy address')}</section>`;
}

function removedNotice(member: MemberView): Html {
  return html`<p role="status">${member.name} (${member.login}) was removed; their console sessions have ended.</p>`;
}

function adminRequired(roleTitle: string, action: 'invite' | 'remove'): ApiError {
  return new ApiError(403, 'forbidden', `Only an owner or an administrator may ${action} a ${roleTitle}.`, {
    required_permission: ADMIN_PERMISSION,
  });
}

async function invite(ctx: AppContext, who: SignedIn, form: Form): Promise<ApiError | Html> {
  const role = form.role ?? '';
  if (isRole(role) && !mayManageRole(who, role)) return adminRequired(ROLES[role].title, 'invite');
  return refusalOr(async () => {
    const member = await addMember(ctx, {
      labelId: who.label.id,
      login: form.login ?? '',
      name: form.name ?? '',
      role,
      ...(form.email?.trim() && { email: form.email.trim() }),
    });
    return invitedNotice(member, await createInvite(ctx, member.user_id));
  });
}

async function remove(ctx: AppContext, who: SignedIn, login: string): Promise<ApiError | Html> {
  if (login.trim() === who.member.login) {
    return errors.invalid('login', 'You cannot remove yourself: ask another member who manages the team.');
  }
  return refusalOr(async () => {
    const member = await getMember(ctx, who.label.id, login);
    if (!mayManageRole(who, member.role)) return adminRequired(member.role_title, 'remove');
    return removedNotice(await removeMember(ctx, who.label.id, login));
  });
}

export function teamPages(app: FastifyInstance, ctx: AppContext): void {
  const viewOf = (who: SignedIn, csrfToken: string): TeamView => ({
    csrfToken,
    self: who.member.login,
    roles: ROLE_NAMES.filter((role) => mayManageRole(who, role)),
  });

  app.get(
    '/console/team',
    consoleRoute(ctx, 'team', 'Team', async (who, _request, csrfToken) =>
      teamContent(ctx, who.label, viewOf(who, csrfToken)),
    ),
  );

  app.post(
    '/console/team/invite',
    { preHandler: app.csrfProtection },
    consoleRoute(ctx, 'team', 'Team', async (who, request, csrfToken): Promise<PageAnswer> => {
      const form = formOf(request);
      const outcome = await invite(ctx, who, form);
      const view = viewOf(who, csrfToken);
      if (outcome instanceof ApiError) {
        const content = await teamContent(ctx, who.label, { ...view, form, refusal: outcome });
        return { status: outcome.status, content };
      }
      return { status: 201, content: await teamContent(ctx, who.label, { ...view, notice: outcome }) };
    }),
  );

  app.post(
    '/console/team/remove',
    { preHandler: app.csrfProtection },
    consoleRoute(ctx, 'team', 'Team', async (who, request, csrfToken): Promise<PageAnswer> => {
      const outcome = await remove(ctx, who, formOf(request).login ?? '');
      const view = viewOf(who, csrfToken);
      if (outcome instanceof ApiError) {
        const notice = refusalMessage(outcome);
        return { status: outcome.status, content: await teamContent(ctx, who.label, { ...view, notice }) };
      }
      return teamContent(ctx, who.label, { ...view, notice: outcome });
    }),
  );
}
