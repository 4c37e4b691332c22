import { Type } from '@sinclair/typebox';
import { DateTime, StringEnum } from '../../http/schemas.ts';

export const SUPPORT_REQUEST_TYPES = ['takedown', 'message'] as const;
export type SupportRequestType = (typeof SUPPORT_REQUEST_TYPES)[number];

/**
 * Where a request stands: `pending` until support acts on it; a takedown request becomes
 * `approved` when the operator orders the takedown and `completed` once every platform reported
 * the release taken down; a message becomes `answered` with its reply.
 */
export const SUPPORT_REQUEST_STATUSES = ['pending', 'approved', 'completed', 'answered'] as const;
export type SupportRequestStatus = (typeof SUPPORT_REQUEST_STATUSES)[number];

export const TakedownRequestBody = Type.Object({
  reason: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'Why the release should come down; support reads it',
      examples: ['The artist has left the label'],
    }),
  ),
});

export const CreatedSupportRequest = Type.Object({
  id: Type.Integer(),
  type: StringEnum(SUPPORT_REQUEST_TYPES),
  status: StringEnum(SUPPORT_REQUEST_STATUSES, { description: '`pending` when created' }),
  created_at: DateTime,
  sandbox: Type.Optional(
    Type.Literal(true, {
      description: 'Made with a sandbox key: kept in the sandbox, no ticket for support',
    }),
  ),
});
