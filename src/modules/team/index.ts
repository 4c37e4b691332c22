export { isRole, type Permission, ROLES, roleAllows } from './team.roles.ts';
export { teamRoutes } from './team.routes.ts';
export { addMember, getMember, listTeam, type MemberView, removeMember } from './team.service.ts';
