export { EVENT_KINDS } from './events.catalog.ts';
export {
  DELIVERY_JOB,
  type DeliveryJob,
  eventsPendingFor,
  queueDeliveries,
  queueDelivery,
  subscribedEvents,
} from './events.fanout.ts';
export { eventsRoutes } from './events.routes.ts';
export { EVENT_RETENTION_MS, pruneExpiredEvents, publish } from './events.service.ts';
export { findEvent } from './events.store.ts';
