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
            'The checks of submit and of the automated moderation, with coded problems: `error` blocks submission (submit answers 400 `invalid` with these errors as `problems`), `warning` does not. ' +
            '`ready` is true when there is no error. Reads the stored release and tracks only (no audio is decoded): the lossy-source analysis of the audio runs in moderation. ' +
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
