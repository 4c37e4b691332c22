import AjvCompiler, { type Options as AjvOptions } from '@fastify/ajv-compiler';

const compilerFromPool = AjvCompiler();

type BuildValidator = typeof compilerFromPool;
type ValidatorCompiler = ReturnType<BuildValidator>;

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
  const compile = (route: { httpPart?: string }) =>
    (route.httpPart === 'body' ? exact : coercing)(route as Parameters<ValidatorCompiler>[0]);
  return compile as ValidatorCompiler;
};
