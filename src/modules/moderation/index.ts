export { audioAnalysisHandler } from './moderation.analysis.ts';
export { closeAudioAnalysis } from './moderation.pool.ts';
export {
  approve,
  decide,
  eventRelease,
  MODERATION_JOB,
  moderationQueue,
  publishAll,
  queueReview,
  reviewHandler,
  type StepEvent,
} from './moderation.service.ts';
