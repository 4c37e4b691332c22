export { ROLE_NAMES } from './team.roles.ts';
export { teamRoutes } from './team.routes.ts';
export { addMember } from './team.service.ts';
