export {
  keepUpload,
  MEDIA_COLLECT_JOB,
  mediaCollectionHandler,
  queueMediaCollection,
  removeUnusedMedia,
} from './media.cleanup.ts';
export { migrateMedia } from './media.migrate.ts';
export {
  type MediaKind,
  type MediaObjects,
  mediaObjects,
  objectKey,
  objectsAt,
  variantKey,
} from './media.objects.ts';
export {
  discardFile,
  newTempPath,
  type ReceivedFile,
  receiveToTemp,
  sweepTempFolder,
} from './media.storage.ts';
