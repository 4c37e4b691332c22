import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse } from '../../http/schemas.ts';
import {
  CreatedSupportRequest,
  MAX_MESSAGE_LENGTH,
  SupportMessageBody,
  SupportRequestList,
} from './support.schemas.ts';
import { listWorkspaceRequests, sendSupportMessage } from './support.service.ts';

export function supportRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/support',
      {
        config: { access: 'support:write' },
        schema: {
          tags: ['support'],
          operationId: 'sendSupportMessage',
          summary: 'Send a message to support, about one of the label’s releases if you like',
          description:
            'Creates a `pending` request of type `message`. Support answers from its desk: the request becomes ' +
            '`answered` with its `reply` (GET /support/requests) and `support.replied` carries the answer. ' +
            `\`message\` is 1-${MAX_MESSAGE_LENGTH} characters, and not blank; surrounding spaces are dropped. ` +
            "`release_id` must be a release of the caller's label: another label's or an unknown id is 400 " +
            '`invalid` with `field: "release_id"` (a body field, so not a 404). ' +
            'With a sandbox key the message is kept in the sandbox and reaches no one.',
          body: SupportMessageBody,
          response: {
            201: Type.Object({ request: CreatedSupportRequest }),
            400: ErrorResponse(
              '`invalid` with the offending `field`: `message` missing, blank or too long, `release_id` not a ' +
                'release of the label, or `body` when there is no JSON object at all',
            ),
          },
        },
      },
      async (request, reply) => {
        const created = await sendSupportMessage(ctx, authOf(request).workspace, request.body);
        // No Location: there is no GET of a single request; GET /support/requests lists them.
        reply.code(201);
        return { request: created };
      },
    );

    app.get(
      '/support/requests',
      {
        // The spec opens this list with the scope that makes the requests, not a read scope.
        config: { access: 'support:write' },
        schema: {
          tags: ['support'],
          operationId: 'listSupportRequests',
          summary: 'Messages and takedown requests made through the API, newest first, with their replies',
          description:
            '`reply` is null until support answers. A sandbox key lists the sandbox’s own requests, marked `sandbox: true`.',
          querystring: PageQuery,
          response: { 200: SupportRequestList },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const list = await listWorkspaceRequests(ctx, authOf(request).workspace, page);
        return {
          requests: list.requests,
          ...pageResponse(request, reply, ctx.config.baseUrl, page, list.total),
        };
      },
    );
  };
}
