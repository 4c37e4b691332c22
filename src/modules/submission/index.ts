export { submissionRoutes } from './submission.routes.ts';
