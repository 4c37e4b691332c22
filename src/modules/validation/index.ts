export {
  type AudioFileFinding,
  errorsOf,
  type FileInspector,
  type Problem,
  releaseProblems,
} from './validation.checks.ts';
export { PROBLEM_CODES, type ProblemCode, type Severity } from './validation.codes.ts';
export { validationRoutes } from './validation.routes.ts';
export type { Issue } from './validation.rules.ts';
