export { coverFilesRoutes } from './cover-files.routes.ts';
export { MIN_COVER_SIDE } from './covers.image.ts';
export { coversRoutes } from './covers.routes.ts';
