import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams } from '../../http/schemas.ts';
import { SubmitBody, SubmitResponse } from './submission.schemas.ts';
import { submitRelease } from './submission.service.ts';

export function submissionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/releases/:id/submit',
      {
        config: { access: 'releases:submit' },
        schema: {
          tags: ['releases'],
          operationId: 'submitRelease',
          summary: 'Send a ready draft to moderation',
          description:
            'Needs a cover, at least one track (a single at most three), audio and at least one contributor on every track, and `confirm_rights: true`. ' +
            'Moderation runs automated checks (duplicate audio, missing files, mono / under 44.1 kHz / under 16-bit / lossy audio, title style rules) and then approves or rejects: ' +
            'approval assigns a UPC and ISRCs where missing and sends the release to the distributor (`release.approved`, `release.submitted`); ' +
            'rejection returns it to `draft` with `review_status: rejected` and the reasons in `review_comment` (`release.rejected`).',
          params: IdParams,
          body: SubmitBody,
          response: {
            202: SubmitResponse,
            400: ErrorResponse(
              'Not ready: `invalid` with `field` of the first problem and `problems` [{field, message}] listing all',
            ),
            409: ErrorResponse('The release is not a draft: `conflict`'),
            428: ErrorResponse('The label has no signed contract: `contract_required`'),
          },
        },
      },
      async (request, reply) => {
        const result = await submitRelease(ctx, authOf(request), request.params.id, request.body);
        reply.code(202);
        return result;
      },
    );
  };
}
