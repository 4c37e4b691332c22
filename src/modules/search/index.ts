export { searchRoutes } from './search.routes.ts';
