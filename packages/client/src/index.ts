export {
  type Answer,
  createLabeldeskClient,
  DEFAULT_RETRY,
  type LabeldeskClient,
  type LabeldeskClientOptions,
  type RetryOptions,
} from './client.ts';
export { type ErrorBody, LabeldeskApiError, type ReleaseProblem } from './errors.ts';
export { type EventName, type FeedEvent, type FeedOptions, feed } from './feed.ts';
export { type ItemOf, nextLink, type PagedPath, paginate } from './paginate.ts';
export type { components, operations, paths } from './schema.ts';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookDelivery,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from './verify-webhook.ts';
