import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serialize = ReturnType<ReturnType<SerializerFactory>>;

/** Fastify's own serializer compiler (fast-json-stringify), the one it uses when none is given. */
const fastJsonStringify = SerializerSelector();

/**
 * Response serializers are compiled when a route first answers with a status, not at start-up:
 * compiling all of them up front (one per route and documented status, most of them error statuses
 * a process may never send) took a sixth of `npm start` (bench/startup.ts). The serializers are the
 * same; a response schema fast-json-stringify cannot compile fails that route's answer instead of the start.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = fastJsonStringify(externalSchemas, options);
  return (route) => {
    let serialize: Serialize | null = null;
    return (doc: unknown) => {
      serialize ??= compile(route);
      return serialize(doc);
    };
  };
};
