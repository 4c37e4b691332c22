export { type Permission, ROLES, roleAllows } from './team.roles.ts';
export { teamRoutes } from './team.routes.ts';
export { addMember, getMember, removeMember } from './team.service.ts';
