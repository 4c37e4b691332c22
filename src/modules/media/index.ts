export {
  keepUpload,
  MEDIA_COLLECT_JOB,
  mediaCollectionHandler,
  queueMediaCollection,
  removeUnusedMedia,
} from './media.cleanup.ts';
export {
  discardFile,
  fileExists,
  mediaPath,
  newTempPath,
  openStoredFile,
  type ReceivedFile,
  receiveToTemp,
  sweepTempFolder,
  variantPath,
} from './media.storage.ts';
