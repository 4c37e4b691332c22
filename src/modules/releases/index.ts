export {
  presentDspStatuses,
  presentEventRelease,
  presentReleaseListItem,
  type ReleaseListView,
} from './releases.presenter.ts';
export { releasesRoutes } from './releases.routes.ts';
export { CalendarDate, DspStatus, ReleaseListBody, ReleaseListItem } from './releases.schemas.ts';
export { releaseCard, releaseHistory, releasePage } from './releases.service.ts';
export {
  findReleaseListRow,
  listDspStatuses,
  listReleasesAwaitingReview,
  type ReleaseListRow,
  releaseCountsByStatus,
  releaseListRowsByIds,
} from './releases.store.ts';
