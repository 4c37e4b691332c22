export { distributorFor, type OutgoingRelease } from './distributor.adapter.ts';
export { DDEX_BATCH_JOB, ddexBatchHandler } from './distributor.ddex.ts';
export {
  SANDBOX_LIVE_JOB,
  SIMULATED_STEP_JOB,
  SIMULATED_TAKEDOWN_JOB,
  sandboxLiveHandler,
  simulatedStepHandler,
  simulatedTakedownHandler,
} from './distributor.jobs.ts';
export type { AppliedReport, PlatformReport } from './distributor.reports.ts';
export { distributorRoutes } from './distributor.routes.ts';
export { applyOperatorReport, takedownPlatforms } from './distributor.service.ts';
export { pruneReportSignatures } from './distributor.signature.ts';
export { AT_DISTRIBUTOR } from './distributor.stages.ts';
