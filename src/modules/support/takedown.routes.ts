import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams } from '../../http/schemas.ts';
import { CreatedSupportRequest, TakedownRequestBody } from './support.schemas.ts';
import { requestTakedown } from './takedown.service.ts';

export function takedownRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/releases/:id/takedown-request',
      {
        config: { access: 'support:write' },
        schema: {
          tags: ['support'],
          operationId: 'requestReleaseTakedown',
          summary: 'Ask support to take a release down from every platform, or from some',
          description:
            'Creates a `pending` takedown request and changes nothing on the platforms: once support approves it, ' +
            'the distributor takes the release down from the platforms named in `dsps` (every platform without ' +
            'it), each reports `taken_down` (`release.dsp_status`), and `support.replied` carries the answer. The ' +
            'release becomes `takedown` once every platform has taken it down; it stays `live` while one has it ' +
            'live. The body may be empty. With a sandbox key the request is kept in the sandbox and reaches no one.',
          params: IdParams,
          body: TakedownRequestBody,
          response: {
            201: Type.Object({ request: CreatedSupportRequest }),
            400: ErrorResponse(
              '`dsps` names a platform that is unknown or that has taken the release down already: `invalid` with `field: "dsps"`',
            ),
            409: ErrorResponse(
              'The release was never sent to the platforms (`draft`, `submitting`), is already taken down, or a ' +
                'takedown request for it is open: `conflict`, then with `request_id` of the open request',
            ),
          },
        },
        // No body at all is a request without a reason: validated as `{}` (Fastify would refuse it).
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const created = await requestTakedown(
          ctx,
          authOf(request).workspace,
          request.params.id,
          request.body,
        );
        // No Location: there is no GET of a single request; GET /support/requests lists them.
        reply.code(201);
        return { request: created };
      },
    );
  };
}
