import AjvCompiler, { type Options as AjvOptions } from '@fastify/ajv-compiler';
import type { FastifyRequest, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { Static, TSchema } from 'typebox';

const compilerFromPool = AjvCompiler();

type BuildValidator = typeof compilerFromPool;
type ValidatorCompiler = ReturnType<BuildValidator>;
/** A validator as Fastify calls it. */
type Validate = ReturnType<FastifySchemaCompiler<unknown>>;

/** The first property of a path or query (flat objects, arrays of repeated values) holding ±Infinity. */
function nonFiniteProperty(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  for (const [name, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'number' && !Number.isFinite(item))) return name;
  }
  return null;
}

/**
 * Ajv coerces the text `1e999` or `Infinity` to Infinity and then checks `maximum` on finite numbers
 * only, so `/releases/1e999` passed as an id and reached PostgreSQL. Refused as the type it is not.
 */
function refusingInfinity(validate: Validate): Validate {
  const checked: Validate = (...args: unknown[]) => {
    const valid: ReturnType<Validate> = Reflect.apply(validate, undefined, args);
    checked.errors = validate.errors;
    const name = valid === true ? nonFiniteProperty(args[0]) : null;
    if (name === null) return valid;
    const issue: FastifySchemaValidationError = {
      keyword: 'type',
      instancePath: `/${name}`,
      schemaPath: '#/type',
      params: {},
      message: 'must be a finite number',
    };
    checked.errors = [issue];
    return false;
  };
  // Fastify lets a validator replace the root value only when it has Ajv's schemaEnv.
  return Object.assign(checked, { schemaEnv: Reflect.get(validate, 'schemaEnv') });
}

/**
 * Request validation. Query strings and paths are text, so their values are coerced to the
 * schema's types (`?page=2` is the integer 2). JSON bodies are validated as sent: coerced, a `0`
 * would pass as `null` for a nullable number and a `null` as `""` for a nullable string.
 */
export const buildValidator: BuildValidator = (externalSchemas, options) => {
  const coercing = compilerFromPool(externalSchemas, options);
  // The server's options are Ajv's (never JTD's): they come from the `ajv` setting in app.ts.
  const serverOptions = options?.customOptions as AjvOptions | undefined;
  const exact = compilerFromPool(externalSchemas, {
    customOptions: { ...serverOptions, coerceTypes: false },
  });
  // Fastify passes the route's schema with the part of the request it is for.
  const compile = (route: { httpPart?: string }) => {
    const schema = route as Parameters<ValidatorCompiler>[0];
    return route.httpPart === 'body' ? exact(schema) : refusingInfinity(coercing(schema));
  };
  return compile as ValidatorCompiler;
};

/** Whether a value has a schema's shape, narrowing it to the schema's type. */
export type SchemaCheck = <S extends TSchema>(schema: S, value: unknown) => value is Static<S>;

/**
 * The app's validator for JSON that no route schema sees (JSON text in a multipart field), so there
 * is one validator. Compiled as a body part: the value is checked as sent, like a JSON body.
 */
export function bodyCheck(request: FastifyRequest): SchemaCheck {
  return <S extends TSchema>(schema: S, value: unknown): value is Static<S> =>
    request.compileValidationSchema(schema, 'body')(value);
}
