export { type HostResolver, systemResolver } from './webhooks.address.ts';
export { deliveryHandler } from './webhooks.delivery.ts';
export { webhooksRoutes } from './webhooks.routes.ts';
export { createWebhookSender } from './webhooks.sender.ts';
export {
  type AttemptView,
  createWebhook,
  deliveryLog,
  eventKinds,
  listWebhooks,
  patchWebhook,
  RECOVERY_WINDOW_DAYS,
  recoverDeliveries,
  redeliver,
  rotateWebhookSecret,
  testWebhook,
  type WebhookCaller,
  type WebhookView,
} from './webhooks.service.ts';
export { attemptCountsSince, deleteAttemptsBefore } from './webhooks.store.ts';
