export { identityRoutes } from './identity.routes.ts';
