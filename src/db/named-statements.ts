import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { statementName } from './prepared.ts';

/**
 * Kysely hands pg only a statement's text and values, so PostgreSQL parses and plans every query
 * anew. A text that `prepared.ts` named goes to pg with its name instead: each connection parses it
 * once and then only binds and runs it.
 */
class NamingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely streams through a cursor only when the dialect is given a cursor class, and it is not.
    if (typeof statement !== 'string') throw new Error('streaming from PostgreSQL is not configured');
    const name = statementName(statement);
    const values = [...parameters];
    const result = name
      ? this.#client.query({ name, text: statement, values })
      : this.#client.query(statement, values);
    return result as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    this.#client.release();
  }
}

/** The pool Kysely uses on PostgreSQL: pg's, with each connection's statements named as above. */
export function namingPool(pool: pg.Pool): PostgresPool {
  // One wrapper per connection: Kysely keeps its own per-connection state keyed by the client object.
  const clients = new WeakMap<pg.PoolClient, NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let naming = clients.get(client);
      if (!naming) {
        naming = new NamingClient(client);
        clients.set(client, naming);
      }
      return naming;
    },
    end: () => pool.end(),
  };
}
