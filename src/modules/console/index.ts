export { consoleRoutes } from './console.routes.ts';
export { createInvite } from './console.sign-in.ts';
