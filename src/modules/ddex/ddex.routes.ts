import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { DdexParty } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { errors } from '../../errors.ts';
import { authOf } from '../../http/request-context.ts';
import { ErrorResponse, IdParams } from '../../http/schemas.ts';
import { MessageQuery, XmlMessage } from './ddex.schemas.ts';
import { releaseMessage } from './ddex.service.ts';

/** The recipient the request names, or the server's default one. */
function recipientOf(ctx: AppContext, query: Static<typeof MessageQuery>): DdexParty {
  if (query.recipient_id) return { id: query.recipient_id.toUpperCase(), name: query.recipient_name ?? null };
  if (query.recipient_name) {
    throw errors.invalid(
      'recipient_name',
      'recipient_name goes with recipient_id, the recipient’s DDEX Party ID',
    );
  }
  const { recipient } = ctx.config.ddex;
  if (!recipient) {
    throw errors.invalid(
      'recipient_id',
      'recipient_id is required: this server has no default recipient (DDEX_RECIPIENT_ID)',
    );
  }
  return recipient;
}

export function ddexRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/releases/:id/ddex',
      {
        config: { access: 'catalog:read' },
        schema: {
          tags: ['releases'],
          operationId: 'getReleaseDdex',
          summary: 'The release as a DDEX ERN 4.3 NewReleaseMessage',
          description:
            'The Audio profile of ERN 4.3: the operator as sender (DDEX_PARTY_ID), the recipient named by `recipient_id` or the server’s DDEX_RECIPIENT_ID, the parties with DDEX roles, a SoundRecording per track with its file (`resources/<UPC>_01_<NNN>.<wav|flac>`) and SHA-256, the front cover, the release, a track release per track, and streaming and download deals for the release’s territories from its release date. A sandbox’s message is a `TestMessage`. Before the release has its UPC and ISRCs (given at approval): 409 `conflict` with `problems`. On a server without DDEX_PARTY_ID: 503 `unavailable`.',
          params: IdParams,
          querystring: MessageQuery,
          response: {
            200: {
              description: 'The message',
              content: { 'application/xml': { schema: XmlMessage } },
            },
            400: ErrorResponse('No recipient: `invalid` with `field: recipient_id`'),
            404: ErrorResponse('No such release in the workspace: `not_found`'),
            409: ErrorResponse(
              'The release has no UPC, ISRCs, cover or audio yet: `conflict` with `problems` [{field, message}]',
            ),
            503: ErrorResponse('DDEX export is not set up on this server: `unavailable`'),
          },
        },
      },
      async (request, reply) => {
        const recipient = recipientOf(ctx, request.query);
        const { upc, xml } = await releaseMessage(
          ctx,
          authOf(request).workspace,
          request.params.id,
          recipient,
        );
        return reply
          .type('application/xml; charset=utf-8')
          .header('content-disposition', `inline; filename="${upc}.xml"`)
          .send(xml);
      },
    );
  };
}
