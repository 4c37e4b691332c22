export { ddexRoutes } from './ddex.routes.ts';
