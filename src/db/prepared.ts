import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.ts';

const SLOT_PREFIX = '\u0000labeldesk-slot:';

/**
 * A query built and compiled once per database, then run with new argument values: for the few
 * queries that run on every request, where building and compiling cost more than executing.
 * `build` receives stand-ins for its arguments and must use each only as a plain value.
 */
export function preparedQuery<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const compiledFor = new WeakMap<Db, CompiledQuery<R>>();
  const compile = (db: Db, arity: number): CompiledQuery<R> => {
    const slots = Array.from({ length: arity }, (_, i) => `${SLOT_PREFIX}${i}`) as unknown as A;
    return build(db, ...slots).compile();
  };
  return async (db: Db, ...args: A): Promise<R[]> => {
    let compiled = compiledFor.get(db);
    if (!compiled) {
      compiled = compile(db, args.length);
      compiledFor.set(db, compiled);
    }
    const parameters = compiled.parameters.map((value) =>
      typeof value === 'string' && value.startsWith(SLOT_PREFIX)
        ? args[Number(value.slice(SLOT_PREFIX.length))]
        : value,
    );
    const result = await db.executeQuery<R>({ ...compiled, parameters });
    return result.rows;
  };
}
