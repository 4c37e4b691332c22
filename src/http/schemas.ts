import { type TSchema, Type } from 'typebox';

/** Shared TypeBox schemas: they validate requests, serialize responses and become the OpenAPI document. */
export const DateTime = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds',
  examples: ['2026-11-22T14:05:09.123Z'],
});

/** A string enum as JSON Schema `enum`, typed as the union of its values. */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'Stable machine-readable code', examples: ['invalid'] }),
    field: Type.Optional(Type.String({ description: 'The offending field (400 invalid)' })),
    required_scope: Type.Optional(Type.String()),
    required_plan: Type.Optional(Nullable(Type.String())),
    plan: Type.Optional(Type.String()),
    resource: Type.Optional(
      Type.String({
        description: 'The used-up limit (plan_limit): releases, links, webhooks, api_keys, members',
      }),
    ),
    limit: Type.Optional(Type.Integer({ description: 'The plan limit that is used up (plan_limit)' })),
    used: Type.Optional(Type.Integer()),
  },
  {
    $id: 'Error',
    additionalProperties: true,
    title: 'Error',
    examples: [
      { error: 'name must have required property', code: 'invalid', field: 'name' },
      { error: 'This key lacks the scope team:read', code: 'forbidden', required_scope: 'team:read' },
      {
        error: 'The api_keys limit of the plan is used up',
        code: 'plan_limit',
        resource: 'api_keys',
        plan: 'start',
        limit: 1,
        used: 1,
        required_plan: 'label',
      },
    ],
  },
);

/** The largest id: ids are 32-bit on PostgreSQL, so a larger number is refused as invalid, not passed to the database. */
export const MAX_ID = 2_147_483_647;

/** An object id. */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });

/** Path parameters of a route on one object. */
export const IdParams = Type.Object({ id: Id });

export const OkBody = Type.Object({ ok: Type.Literal(true) });

/**
 * An error response a route documents beyond those every keyed route has (409, 413, 415, 428):
 * the shared Error schema with what the status means here.
 */
export const ErrorResponse = (description: string) => Type.Unsafe({ $ref: 'Error#', description });
