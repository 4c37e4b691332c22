import { Type } from 'typebox';
import { EVENT_NAMES } from '../../db/values.ts';
import { PageFields } from '../../http/pagination.ts';
import { DateTime, MAX_ID, Nullable, StringEnum } from '../../http/schemas.ts';

const EventName = StringEnum(EVENT_NAMES);

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https address; private, loopback and cloud-metadata addresses are refused',
  examples: ['https://hooks.example.com/labeldesk'],
});

const Events = Type.Array(EventName, {
  minItems: 1,
  maxItems: EVENT_NAMES.length,
  uniqueItems: true,
  description: 'Event names this address receives (GET /webhooks/events lists them)',
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(EventName),
  created_at: DateTime,
  active: Type.Boolean({
    description: 'False after 20 failed attempts in a row, until PATCH `active: true`',
  }),
  consecutive_failures: Type.Integer({ minimum: 0, description: 'Failed attempts since the last success' }),
});

export const WebhookWithSecret = Type.Object({
  ...Webhook.properties,
  secret: Type.String({
    pattern: '^svcwh_',
    description: 'Signing secret: shown here only, on creation and rotation',
  }),
});

export const CreateWebhookBody = Type.Object({ url: Url, events: Events });

export const PatchWebhookBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  active: Type.Optional(
    Type.Boolean({ description: '`true` re-enables the address and resets its failure count' }),
  ),
});

export const RedeliverBody = Type.Object({
  event_id: Type.Integer({
    minimum: 1,
    maximum: MAX_ID,
    description: 'An event id from GET /events',
  }),
});

export const RecoverBody = Type.Object({
  since: Type.String({
    format: 'date-time',
    description:
      'Send again what failed or never went out since this moment: at most 14 days back; a webhook is sent nothing from before its creation',
    examples: ['2026-11-22T14:05:09.123Z'],
  }),
});

export const RecoveryQueued = Type.Object({
  queued: Type.Integer({
    minimum: 0,
    description:
      'Deliveries queued, each with `redelivery: true` and `event_id`; events with a delivery still queued are not counted twice',
  }),
});

export const QueuedDelivery = Type.Object({
  delivery_id: Type.String({ description: 'Sent as X-Service-Delivery-Id and as the body `id`' }),
  event_id: Type.Integer(),
});

export const Attempt = Type.Object({
  delivery_id: Type.String(),
  event: EventName,
  event_id: Nullable(
    Type.Integer({
      description:
        'The event carried, as POST /webhooks/{id}/redeliver takes it; null for attempts logged before the log recorded it',
    }),
  ),
  attempt: Type.Integer({ minimum: 1, description: '1 to 3: the attempts of one delivery share its id' }),
  status: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when it gave none" })),
  ok: Type.Boolean(),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Nullable(Type.String({ description: 'Why the attempt failed' })),
  created_at: DateTime,
});

export const AttemptListBody = Type.Object({ deliveries: Type.Array(Attempt), ...PageFields });

export const EventKindList = Type.Object({
  events: Type.Array(Type.Object({ event: EventName, description: Type.String() })),
});
