export {
  type BatchTarget,
  batchTargets,
  exportBatches,
  type WrittenBatch,
  writeReleaseBatches,
} from './ddex.batch.ts';
export { ddexRoutes } from './ddex.routes.ts';
