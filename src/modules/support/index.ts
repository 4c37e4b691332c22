export { supportRoutes } from './support.routes.ts';
export { MAX_MESSAGE_LENGTH } from './support.schemas.ts';
export { type OperatorRequestView, replyToMessage, supportQueue } from './support.service.ts';
export { takedownRoutes } from './takedown.routes.ts';
export { approveTakedown } from './takedown.service.ts';
