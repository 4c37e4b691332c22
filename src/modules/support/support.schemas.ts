import { Type } from 'typebox';
import { SUPPORT_REQUEST_STATUSES, SUPPORT_REQUEST_TYPES } from '../../db/values.ts';
import { PageFields } from '../../http/pagination.ts';
import { DateTime, Id, Nullable, StringEnum } from '../../http/schemas.ts';

/** Longest message to support, and longest reply from it, in characters. */
export const MAX_MESSAGE_LENGTH = 5000;

const sandboxMark = {
  sandbox: Type.Optional(
    Type.Literal(true, {
      description: 'Made with a sandbox key: kept in the sandbox, no ticket for support',
    }),
  ),
};

export const TakedownRequestBody = Type.Object({
  reason: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'Why the release should come down; support reads it',
      examples: ['The artist has left the label'],
    }),
  ),
  dsps: Type.Optional(
    Type.Array(Type.String({ description: 'A platform key from GET /platforms' }), {
      minItems: 1,
      uniqueItems: true,
      description:
        'The platforms to take the release down from, each one it is on; absent: every platform. The release stays `live` while another platform has it live',
      examples: [['spotify', 'apple_music']],
    }),
  ),
});

export const SupportMessageBody = Type.Object({
  message: Type.String({
    minLength: 1,
    maxLength: MAX_MESSAGE_LENGTH,
    description: `What support should read, ${MAX_MESSAGE_LENGTH} characters at most; surrounding spaces are dropped`,
    examples: ['The cover of release 42 shows on one platform only. Can you check?'],
  }),
  release_id: Type.Optional(
    Type.Union([Id, Type.Null()], {
      description:
        "A release of the caller's label the message is about; another label's is refused as invalid",
    }),
  ),
});

export const CreatedSupportRequest = Type.Object({
  id: Type.Integer(),
  type: StringEnum(SUPPORT_REQUEST_TYPES),
  status: StringEnum(SUPPORT_REQUEST_STATUSES, { description: '`pending` when created' }),
  created_at: DateTime,
  ...sandboxMark,
});

export const SupportRequest = Type.Object({
  id: Type.Integer(),
  type: StringEnum(SUPPORT_REQUEST_TYPES, {
    description: '`message` (POST /support) or `takedown` (POST /releases/{id}/takedown-request)',
  }),
  status: StringEnum(SUPPORT_REQUEST_STATUSES, {
    description:
      '`pending` until support acts; a message becomes `answered`; a takedown request `approved`, then `completed` once the release is down from the platforms it names (every platform when it names none)',
  }),
  message: Nullable(Type.String({ description: 'The message, or the reason given for a takedown' })),
  release_id: Nullable(
    Type.Integer({ description: 'The release the request is about; null when none (or deleted since)' }),
  ),
  reply: Nullable(Type.String({ description: "Support's answer; null until it answers" })),
  dsps: Nullable(
    Type.Array(Type.String(), {
      description: 'The platforms a takedown request names; null: every platform (and for messages)',
    }),
  ),
  created_at: DateTime,
  updated_at: DateTime,
  ...sandboxMark,
});

export const SupportRequestList = Type.Object({ requests: Type.Array(SupportRequest), ...PageFields });
