export { searchRoutes } from './search.routes.ts';
export { searchCatalog } from './search.service.ts';
