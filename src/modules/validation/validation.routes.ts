import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/request-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { ValidationBody } from './validation.schemas.ts';
import { validateRelease } from './validation.service.ts';

export function validationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/releases/:id/validate',
      {
        config: { access: 'catalog:read', changesNothing: true },
        schema: {
          tags: ['releases'],
          operationId: 'validateRelease',
          summary: 'What is wrong with a release, before submitting it',
          description:
            'The checks of submit and of the automated moderation, with coded problems: an `error` keeps the release from the platforms (submit answers 400 `invalid` with those of its preconditions; moderation rejects the release for the others), a `warning` does not. ' +
            '`ready` is true when there is no error. Reads the stored release and tracks only (no audio is decoded): the lossy-source analysis runs after each upload, and until it has, `audio_analysis_pending` stands for it. ' +
            'It changes nothing and is safe to repeat; an `Idempotency-Key` is ignored, so a repeat after a fix sees the release as it is now. ' +
            'The problem codes and their meanings are listed in docs/api-guide.md.',
          params: IdParams,
          response: { 200: ValidationBody },
        },
      },
      async (request) => validateRelease(ctx, authOf(request).workspace, request.params.id),
    );
  };
}
