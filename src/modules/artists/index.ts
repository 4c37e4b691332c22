export { artistsRoutes } from './artists.routes.ts';
export { artistsByIds } from './artists.store.ts';
