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
            'Refuses a release with any error that `POST /releases/{id}/validate` lists (no cover, no tracks or too many for a single, a track without audio or contributors, duplicate audio, mono / under 44.1 kHz / under 16-bit audio, title style rules), and needs `confirm_rights: true`. ' +
            'Moderation runs the same checks again with the stored files opened (missing files, lossy audio) and then approves or rejects: ' +
            'approval assigns a UPC and ISRCs where missing and sends the release to the distributor (`release.approved`, `release.submitted`); ' +
            'rejection returns it to `draft` with `review_status: rejected` and the reasons in `review_comment` (`release.rejected`).',
          params: IdParams,
          body: SubmitBody,
          response: {
            202: SubmitResponse,
            400: ErrorResponse(
              'Not ready: `invalid` with `field` of the first problem and `problems` [{code, severity, field, message, track_id}] listing every error (the codes of validate, plus `rights_not_confirmed`)',
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
