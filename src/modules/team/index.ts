export { teamRoutes } from './team.routes.ts';
export { addMember } from './team.service.ts';
