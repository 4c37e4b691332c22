export { statusRoutes } from './status.routes.ts';
export { DISTRIBUTOR_LAST_EVENT_MARK } from './status.service.ts';
export { stampMark } from './status.store.ts';
