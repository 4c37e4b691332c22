export { consoleRoutes } from './console.routes.ts';
export { acceptInvite, createInvite } from './console.sign-in.ts';
