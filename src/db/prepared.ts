import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.ts';

const SLOT_PREFIX = '\u0000labeldesk-slot:';

/**
 * Named statements stay prepared on each PostgreSQL connection for its life, so their number is
 * bounded: a text beyond it runs unnamed, as any other query does.
 */
const MAX_NAMED_STATEMENTS = 500;

/** The SQL texts run as named statements on PostgreSQL, and their names. */
const statementNames = new Map<string, string>();

function nameStatement(text: string): void {
  if (statementNames.has(text) || statementNames.size >= MAX_NAMED_STATEMENTS) return;
  statementNames.set(text, `labeldesk_${statementNames.size + 1}`);
}

/** The name a hot statement's text runs under on PostgreSQL (named-statements.ts), if it has one. */
export function statementName(text: string): string | undefined {
  return statementNames.get(text);
}

/**
 * A query built and compiled once per database, then run with new argument values: for the few
 * queries that run on every request, where building and compiling cost more than executing. On
 * PostgreSQL it is a named statement, parsed and planned once per connection.
 * `build` receives stand-ins for its arguments and must use each only as a plain value.
 */
export function preparedQuery<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const compiledFor = new WeakMap<Db, CompiledQuery<R>>();
  const compile = (db: Db, arity: number): CompiledQuery<R> => {
    const slots = Array.from({ length: arity }, (_, i) => `${SLOT_PREFIX}${i}`) as unknown as A;
    const compiled = build(db, ...slots).compile();
    nameStatement(compiled.sql);
    return compiled;
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

/**
 * Runs a hot query whose shape varies a little with its input (a list's filters and order) as a
 * named statement on PostgreSQL: each of its few texts is parsed and planned once per connection.
 */
export async function executeNamed<R>(db: Db, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  nameStatement(compiled.sql);
  return (await db.executeQuery<R>(compiled)).rows;
}
