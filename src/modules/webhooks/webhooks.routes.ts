import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams, OkBody } from '../../http/schemas.ts';
import {
  AttemptListBody,
  CreateWebhookBody,
  EventKindList,
  PatchWebhookBody,
  QueuedDelivery,
  RecoverBody,
  RecoveryQueued,
  RedeliverBody,
  Webhook,
  WebhookWithSecret,
} from './webhooks.schemas.ts';
import {
  createWebhook,
  deliveryLog,
  eventKinds,
  listWebhooks,
  patchWebhook,
  recoverDeliveries,
  redeliver,
  removeWebhook,
  rotateWebhookSecret,
  testWebhook,
} from './webhooks.service.ts';

const PLAN_REQUIRED = ErrorResponse('Webhooks need the Label plan or above: `plan_required`');
const LIVE_KEY_REQUIRED = ErrorResponse(
  'Webhooks need the Label plan or above (`plan_required`); a sandbox key may not change them (`live_key_required`)',
);
const DISABLED = ErrorResponse('The webhook is disabled: `conflict`; PATCH `active: true` first');

/** Tests, redeliveries and recoveries share this budget per webhook, so one label cannot flood the workers. */
const SENDS_PER_WEBHOOK = { limit: 10, object: 'webhook' };
const TOO_MANY_SENDS = ErrorResponse(
  'More than 10 tests, redeliveries and recoveries a minute to this webhook, or the key is over its rate: `rate_limited`, with Retry-After',
);

export function webhooksRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/webhooks/events',
      {
        config: { access: 'any_key' },
        schema: {
          tags: ['webhooks'],
          operationId: 'listEventKinds',
          summary: 'The event kinds webhooks can receive, each with a one-line description',
          response: { 200: EventKindList },
        },
      },
      async () => eventKinds(),
    );

    app.get(
      '/webhooks',
      {
        config: { access: 'webhooks:manage' },
        schema: {
          tags: ['webhooks'],
          operationId: 'listWebhooks',
          summary: "The label's webhooks (never their secrets)",
          response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), 403: PLAN_REQUIRED },
        },
      },
      async (request) => ({ webhooks: await listWebhooks(ctx, authOf(request)) }),
    );

    app.post(
      '/webhooks',
      {
        config: { access: 'webhooks:manage', secretInResponse: true },
        schema: {
          tags: ['webhooks'],
          operationId: 'createWebhook',
          summary: 'Add an address (Label 3, Pro 10, Enterprise 25); the secret is shown this once',
          body: CreateWebhookBody,
          response: {
            201: Type.Object({ webhook: WebhookWithSecret }),
            403: ErrorResponse(
              '`plan_required` on Start; `plan_limit` when the plan has no room; `live_key_required` for a sandbox key',
            ),
          },
        },
      },
      async (request, reply) => {
        const webhook = await createWebhook(ctx, authOf(request), request.body);
        reply.code(201).header('location', `${ctx.config.baseUrl}/api/v1/webhooks/${webhook.id}`);
        return { webhook };
      },
    );

    app.patch(
      '/webhooks/:id',
      {
        config: { access: 'webhooks:manage' },
        schema: {
          tags: ['webhooks'],
          operationId: 'updateWebhook',
          summary: 'Change the address or events, or switch it on (resetting its failure count) or off',
          params: IdParams,
          body: PatchWebhookBody,
          response: { 200: Type.Object({ webhook: Webhook }), 403: LIVE_KEY_REQUIRED },
        },
      },
      async (request) => ({
        webhook: await patchWebhook(ctx, authOf(request), request.params.id, request.body),
      }),
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { access: 'webhooks:manage' },
        schema: {
          tags: ['webhooks'],
          operationId: 'deleteWebhook',
          summary: 'Remove the address; queued deliveries to it are dropped',
          params: IdParams,
          response: { 200: OkBody, 403: LIVE_KEY_REQUIRED },
        },
      },
      async (request) => {
        await removeWebhook(ctx, authOf(request), request.params.id);
        return { ok: true as const };
      },
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { access: 'webhooks:manage', perObjectPerMinute: SENDS_PER_WEBHOOK },
        schema: {
          tags: ['webhooks'],
          operationId: 'testWebhook',
          summary:
            "Send a `webhook.test` event to this address alone (a sandbox key's carries `data.sandbox: true`)",
          params: IdParams,
          response: { 202: QueuedDelivery, 403: PLAN_REQUIRED, 409: DISABLED, 429: TOO_MANY_SENDS },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return testWebhook(ctx, authOf(request), request.params.id);
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { access: 'webhooks:manage' },
        schema: {
          tags: ['webhooks'],
          operationId: 'listWebhookDeliveries',
          summary:
            "The delivery log: every attempt, newest first, paged; a sandbox key's shows its sandbox's only",
          params: IdParams,
          querystring: PageQuery,
          response: { 200: AttemptListBody, 403: PLAN_REQUIRED },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const result = await deliveryLog(ctx, authOf(request), request.params.id, page);
        return {
          deliveries: result.deliveries,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, result.total),
        };
      },
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        config: { access: 'webhooks:manage', secretInResponse: true },
        schema: {
          tags: ['webhooks'],
          operationId: 'rotateWebhookSecret',
          summary: 'A new signing secret, shown this once; the old one signs nothing more',
          params: IdParams,
          response: { 200: Type.Object({ webhook: WebhookWithSecret }), 403: LIVE_KEY_REQUIRED },
        },
      },
      async (request) => ({ webhook: await rotateWebhookSecret(ctx, authOf(request), request.params.id) }),
    );

    app.post(
      '/webhooks/:id/redeliver',
      {
        config: { access: 'webhooks:manage', perObjectPerMinute: SENDS_PER_WEBHOOK },
        schema: {
          tags: ['webhooks'],
          operationId: 'redeliverEvent',
          summary: 'Send an event from the feed again; the body carries `redelivery: true` and `event_id`',
          params: IdParams,
          body: RedeliverBody,
          response: { 202: QueuedDelivery, 403: LIVE_KEY_REQUIRED, 409: DISABLED, 429: TOO_MANY_SENDS },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return redeliver(ctx, authOf(request), request.params.id, request.body.event_id);
      },
    );

    app.post(
      '/webhooks/:id/recover',
      {
        config: { access: 'webhooks:manage', perObjectPerMinute: SENDS_PER_WEBHOOK },
        schema: {
          tags: ['webhooks'],
          operationId: 'recoverWebhookDeliveries',
          summary:
            'After an outage: send again every event since `since` this webhook should have had and never took with a 2xx',
          description:
            'Queues one delivery (`redelivery: true`, `event_id`) per event of the kinds the webhook subscribes to, the tests it was sent and the `webhook.failing` warnings about other webhooks, oldest first, from the label and its sandbox. Events whose delivery to it is still queued or retrying are left to that delivery, so calling again while they are pending queues nothing twice.',
          params: IdParams,
          body: RecoverBody,
          response: { 202: RecoveryQueued, 403: LIVE_KEY_REQUIRED, 409: DISABLED, 429: TOO_MANY_SENDS },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return recoverDeliveries(ctx, authOf(request), request.params.id, request.body.since);
      },
    );
  };
}
