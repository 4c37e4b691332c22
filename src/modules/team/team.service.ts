import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import type { LabelRow } from '../../core/labels.ts';
import { ROLE_NAMES, type Role } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { getLabel } from '../labels/index.ts';
import { countUsage, enforceLimit, termsOf } from '../plans/index.ts';
import { isRole, ROLES } from './team.roles.ts';
import { deleteMember, findMemberByLogin, insertMember, listMembers, type MemberRow } from './team.store.ts';

export interface MemberView {
  user_id: number;
  login: string;
  name: string;
  role: Role;
  role_title: string;
  permissions: string[];
  joined_at: string;
  last_seen_at: string | null;
}

/** E-mail is stored for the operator but never presented. */
export function presentMember(member: MemberRow): MemberView {
  const role = ROLES[member.role];
  return {
    user_id: member.id,
    login: member.login,
    name: member.name,
    role: member.role,
    role_title: role.title,
    permissions: [...role.permissions],
    joined_at: member.joined_at,
    last_seen_at: member.last_seen_at,
  };
}

export async function addMember(
  ctx: AppContext,
  input: { labelId: number; login: string; name: string; role: string; email?: string },
): Promise<MemberView> {
  const label = await getLabel(ctx, input.labelId);
  const login = input.login.trim();
  const name = input.name.trim();
  if (!login) throw errors.invalid('login', 'login is required');
  if (!name) throw errors.invalid('name', 'name is required');
  if (!isRole(input.role)) throw errors.invalid('role', `role must be one of ${ROLE_NAMES.join(', ')}`);
  if (await findMemberByLogin(ctx.db, label.id, login)) {
    throw errors.conflict(`${login} is already a member of this label`);
  }
  await enforceLimit(ctx.db, label, 'members');
  const member = await insertMember(ctx.db, {
    label_id: label.id,
    login,
    name,
    email: input.email ?? null,
    role: input.role,
    joined_at: isoNow(ctx.clock),
    last_seen_at: null,
  });
  return presentMember(member);
}

/** The team is the label's staff, the same for its live and sandbox keys. */
export async function listTeam(
  ctx: AppContext,
  label: LabelRow,
  page: { limit: number; offset: number },
): Promise<{ members: MemberView[]; total: number; seats: { used: number; max: number | null } }> {
  const [members, total] = await Promise.all([
    listMembers(ctx.db, label.id, page),
    countUsage(ctx.db, 'members', label.id),
  ]);
  return {
    members: members.map(presentMember),
    total,
    seats: { used: total, max: termsOf(label).limits.members },
  };
}

/** The label's member with this login; 404 when there is none. */
export async function getMember(ctx: AppContext, labelId: number, login: string): Promise<MemberView> {
  const label = await getLabel(ctx, labelId);
  const member = await findMemberByLogin(ctx.db, label.id, login.trim());
  if (!member) throw errors.notFound(`Member ${login}`);
  return presentMember(member);
}

/** Frees the member's seat and ends their console sessions at once. */
export async function removeMember(ctx: AppContext, labelId: number, login: string): Promise<MemberView> {
  const member = await getMember(ctx, labelId, login);
  await deleteMember(ctx.db, labelId, member.user_id);
  return member;
}
