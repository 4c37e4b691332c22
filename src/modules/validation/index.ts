export {
  errorsOf,
  type FileInspector,
  type Problem,
  refusedAtSubmit,
  releaseProblems,
} from './validation.checks.ts';
export { lossySourceIssue } from './validation.lossy.ts';
export { validationRoutes } from './validation.routes.ts';
export type { Issue } from './validation.rules.ts';
