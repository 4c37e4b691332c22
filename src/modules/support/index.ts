export { supportRoutes } from './support.routes.ts';
export { MAX_MESSAGE_LENGTH } from './support.schemas.ts';
export {
  listWorkspaceRequests,
  type OperatorRequestView,
  replyToMessage,
  type SupportRequestView,
  sendSupportMessage,
  supportQueue,
} from './support.service.ts';
export { takedownRoutes } from './takedown.routes.ts';
export { approveTakedown } from './takedown.service.ts';
