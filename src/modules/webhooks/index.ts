export { type HostResolver, systemResolver } from './webhooks.address.ts';
export { deliveryHandler } from './webhooks.delivery.ts';
export { webhooksRoutes } from './webhooks.routes.ts';
export { createWebhookSender } from './webhooks.sender.ts';
export { attemptCountsSince, deleteAttemptsBefore } from './webhooks.store.ts';
