import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type {
  FastifyBodyParser,
  FastifyRequest,
  preParsingHookHandler,
  preValidationHookHandler,
} from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { DSP_STAGES, RELEASE_STATUSES } from '../../db/values.ts';
import { ApiError } from '../../errors.ts';
import { ErrorResponse, Id, Nullable, StringEnum } from '../../http/schemas.ts';
import { PLATFORM_KEYS } from '../platforms/index.ts';

import { MAX_DETAIL } from './distributor.reports.ts';
import { applySignedReports } from './distributor.service.ts';
import {
  assertFresh,
  assertSignedBy,
  type DistributorSignature,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
} from './distributor.signature.ts';

export const REPORTS_PATH = '/distributor/v1/reports';

/**
 * Requests a minute from one address. Signatures make guessing pointless; the limit bounds what
 * an unsigned flood costs (each request reads up to 100 KB and computes an HMAC). A distributor
 * sends up to 100 reports a request, so this leaves it 12,000 reports a minute.
 */
const REPORTS_PER_ADDRESS_PER_MINUTE = 120;
const MAX_REPORTS = 100;

const Report = Type.Object(
  {
    release_id: { ...Id, description: 'The release as Labeldesk numbers it (`release.submitted` names it)' },
    dsp: StringEnum(PLATFORM_KEYS, { description: 'Platform key (GET /api/v1/platforms lists them)' }),
    stage: StringEnum(DSP_STAGES, {
      description:
        'The platform’s new stage. `submitted` → `accepted` → `live`; `rejected` and `failed` may be sent again (`submitted`); `taken_down` is final',
    }),
    detail: Type.Optional(
      Nullable(Type.String({ maxLength: MAX_DETAIL, description: 'Why, in words (a rejection reason)' })),
    ),
    url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          pattern: '^https://',
          description:
            'https address of the release on the platform; kept as its store link while it is `live` there (without one, the platform’s search for the UPC stands in)',
          examples: ['https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy'],
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

const ReportsBody = Type.Object(
  {
    reports: Type.Array(Report, {
      minItems: 1,
      maxItems: MAX_REPORTS,
      description: 'Applied all together or not at all, in one transaction',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reports: [
          {
            release_id: 42,
            dsp: 'spotify',
            stage: 'live',
            url: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy',
          },
          {
            release_id: 42,
            dsp: 'deezer',
            stage: 'rejected',
            detail: 'Cover art does not meet the guidelines',
          },
        ],
      },
    ],
  },
);

const SignatureHeaders = Type.Object({
  [SIGNATURE_HEADER]: Type.String({
    description: `\`t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "t.rawBody" with DISTRIBUTOR_SECRET>\`; t within ${SIGNATURE_TOLERANCE_SECONDS} seconds of the server's clock`,
    examples: ['t=1772445600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'],
  }),
});

const Applied = Type.Object({
  release_id: Type.Integer(),
  dsp: StringEnum(PLATFORM_KEYS),
  stage: StringEnum(DSP_STAGES),
  changed: Type.Boolean({ description: 'False when the platform was already at this stage' }),
  release_status: StringEnum(RELEASE_STATUSES, { description: 'The release status after the whole batch' }),
});

const AppliedBody = Type.Object(
  { ok: Type.Literal(true), applied: Type.Array(Applied) },
  { description: 'Every report applied, in the order sent' },
);

const DESCRIPTION = [
  'How a distributor reports what platforms did with releases. No API key: the request is authenticated by `X-Distributor-Signature` alone, the scheme webhook deliveries use (`v1` is the lowercase hex HMAC-SHA256, with the installation’s `DISTRIBUTOR_SECRET`, of `t`, a dot and the exact body bytes).',
  `Each report sets one platform’s stage of one release, sends \`release.dsp_status\` to the label, and the release status follows (\`live\` once any platform is live, with \`release.live\` the first time; \`failed\` when every platform rejected or failed; \`takedown\` when every platform took it down). A report that repeats the current stage changes nothing (\`changed: false\`). A batch is applied whole or not at all: one refused report leaves every report unapplied, and the same signed request may be sent again once fixed. A signature that was applied once is refused afterwards (409), so a captured request cannot be replayed.`,
  `While \`DISTRIBUTOR_SECRET\` is not set the endpoint answers 404 \`not_found\`: there is nothing to authenticate against, and the installation accepts reports only from its built-in distributor and the \`labeldesk distributor report\` command. ${REPORTS_PER_ADDRESS_PER_MINUTE} requests a minute per address.`,
].join('\n\n');

/** The endpoint is closed without a secret: nothing could be verified, so it answers as if absent. */
function requireSecret(ctx: AppContext): string {
  const secret = ctx.config.distributorSecret;
  if (secret === null) {
    throw new ApiError(
      404,
      'not_found',
      'Inbound distributor reports are not enabled on this server: the operator sets DISTRIBUTOR_SECRET to open them',
    );
  }
  return secret;
}

function signatureOf(request: FastifyRequest): DistributorSignature {
  return parseSignatureHeader(request.headers[SIGNATURE_HEADER]);
}

/** Before the body is read: closed endpoint, missing or malformed header, stamp out of tolerance. */
function checkSignatureHeader(ctx: AppContext): preParsingHookHandler {
  return (request, _reply, payload, done) => {
    try {
      requireSecret(ctx);
      assertFresh(signatureOf(request), ctx.clock.now());
      done(null, payload);
    } catch (error) {
      done(error as Error);
    }
  };
}

/** The body exactly as it arrived: the signature covers these bytes, not a re-serialization. */
const keepRawBody: FastifyBodyParser<Buffer> = (_request, body, done) => done(null, body);

/**
 * After the body is read and before it is validated: the signature over the raw bytes, then the
 * JSON, so an unsigned request is refused before anything in its body is looked at.
 */
function verifyAndParse(ctx: AppContext, parseJson: FastifyBodyParser<string>): preValidationHookHandler {
  return (request, _reply, done) => {
    try {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      assertSignedBy(requireSecret(ctx), signatureOf(request), raw);
      // Without a content type there is no body to parse: validation says what is missing.
      if (!Buffer.isBuffer(request.body)) {
        done();
        return;
      }
      // The server's own JSON parser, so bad JSON and poisoned keys get the usual errors.
      parseJson(request, raw.toString('utf8'), (error: Error | null, parsed?: unknown) => {
        if (error) {
          done(error);
          return;
        }
        request.body = parsed;
        done();
      });
    } catch (error) {
      done(error as Error);
    }
  };
}

/** The signed inbound endpoint of a real distributor, outside /api/v1: it has no API key. */
export function distributorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Encapsulated to this plugin: other routes keep the server's JSON parser.
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, keepRawBody);
    app.addHook('preParsing', checkSignatureHeader(ctx));
    app.addHook('preValidation', verifyAndParse(ctx, app.getDefaultJsonParser('error', 'error')));

    app.post(
      REPORTS_PATH,
      {
        config: { perAddressPerMinute: REPORTS_PER_ADDRESS_PER_MINUTE },
        schema: {
          tags: ['distributor'],
          operationId: 'postDistributorReports',
          summary: 'Platform reports from the distributor, signed with DISTRIBUTOR_SECRET',
          description: DESCRIPTION,
          headers: SignatureHeaders,
          body: ReportsBody,
          response: {
            200: AppliedBody,
            400: ErrorResponse(
              'Invalid report: `invalid` with `field` such as `reports.0.stage`; also a release id no release has (`reports.0.release_id`). Nothing of the batch is applied',
            ),
            401: ErrorResponse(
              'Signature missing, malformed, not matching the body, or with `t` more than 300 seconds from the server’s clock: `unauthorized`',
            ),
            404: ErrorResponse('Inbound reports are not enabled (no DISTRIBUTOR_SECRET): `not_found`'),
            409: ErrorResponse(
              '`conflict`: the signature was already applied (a replay), or a report cannot apply in the release’s state (a draft or sandbox release, a move such as `live` → `submitted`), with `field`. Nothing of the batch is applied',
            ),
            413: ErrorResponse('Body over 100 KB: `payload_too_large`'),
            415: ErrorResponse('Body not `application/json`: `unsupported_media_type`'),
          },
        },
      },
      async (request) => {
        const { reports } = request.body;
        const applied = await applySignedReports(ctx, signatureOf(request), reports);
        return { ok: true as const, applied };
      },
    );
  };
}
