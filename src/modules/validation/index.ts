export { errorsOf, type FileInspector, type Problem, releaseProblems } from './validation.checks.ts';
export type { Issue } from './validation.rules.ts';
export { validationRoutes } from './validation.routes.ts';
