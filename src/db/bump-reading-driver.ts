import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Statements that may bump a version (the tables migrations 0012 and 0015 watch: callers and
 * smart-link pages); only after these does the committing process read which subjects its
 * transaction bumped. Counters (a link's views, clicks and pre-saves, a target's clicks) are
 * updates that set a counter first, and bump nothing; a release's update bumps only with its cover.
 */
const WATCHED_WRITE = new RegExp(
  [
    /^\s*(?:insert into|delete from) "(?:labels|api_keys|releases|artists|members|smart_links|smart_link_targets|webhooks)"/,
    /^\s*update "(?:labels|api_keys)"/,
    /^\s*update "smart_links" set (?!"(?:views|clicks|presaves)" = )/,
    /^\s*update "smart_link_targets" set (?!"clicks" = )/,
    /^\s*update "releases" set .*"cover_(?:hash|format|width|height)"/,
  ]
    .map((pattern) => pattern.source)
    .join('|'),
);

const READ_BUMPS = CompiledQuery.raw("select current_setting('labeldesk.cache_bumps', true) as bumps");

interface ConnectionState {
  inner: DatabaseConnection;
  inTransaction: boolean;
  bumped: boolean;
}

/**
 * A driver that, after a statement that may bump a cached caller, reads the subjects the triggers
 * noted in the transaction before it commits, and hands them on once committed. A watched statement
 * outside a transaction runs in one of its own for that.
 */
export class BumpReadingDriver implements Driver {
  private readonly states = new WeakMap<DatabaseConnection, ConnectionState>();

  constructor(
    private readonly inner: Driver,
    private readonly committed: (subjects: readonly string[]) => Promise<void>,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    const state: ConnectionState = { inner, inTransaction: false, bumped: false };
    const connection: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery) => this.execute<R>(state, query),
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    this.states.set(connection, state);
    return connection;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.stateOf(connection).inner);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const state = this.stateOf(connection);
    state.inTransaction = true;
    state.bumped = false;
    return this.inner.beginTransaction(state.inner, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const state = this.stateOf(connection);
    const subjects = state.bumped ? await readBumps(state.inner) : [];
    state.inTransaction = false;
    state.bumped = false;
    await this.inner.commitTransaction(state.inner);
    if (subjects.length > 0) await this.committed(subjects);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const state = this.stateOf(connection);
    state.inTransaction = false;
    state.bumped = false;
    return this.inner.rollbackTransaction(state.inner);
  }

  // A savepoint rolled back takes its part of the noted subjects with it, as it does the bumps.
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.inner.savepoint?.(this.stateOf(connection).inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.rollbackToSavepoint?.(this.stateOf(connection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.releaseSavepoint?.(this.stateOf(connection).inner, name, compile);
  }

  private async execute<R>(state: ConnectionState, query: CompiledQuery): Promise<QueryResult<R>> {
    if (!WATCHED_WRITE.test(query.sql)) return state.inner.executeQuery<R>(query);
    if (state.inTransaction) {
      state.bumped = true;
      return state.inner.executeQuery<R>(query);
    }
    await state.inner.executeQuery(CompiledQuery.raw('begin'));
    let result: QueryResult<R>;
    let subjects: string[];
    try {
      result = await state.inner.executeQuery<R>(query);
      subjects = await readBumps(state.inner);
      await state.inner.executeQuery(CompiledQuery.raw('commit'));
    } catch (error) {
      await state.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      throw error;
    }
    if (subjects.length > 0) await this.committed(subjects);
    return result;
  }

  private stateOf(connection: DatabaseConnection): ConnectionState {
    const state = this.states.get(connection);
    if (!state) throw new Error('a connection this driver did not hand out');
    return state;
  }
}

async function readBumps(connection: DatabaseConnection): Promise<string[]> {
  const { rows } = await connection.executeQuery<{ bumps: string | null }>(READ_BUMPS);
  return (rows[0]?.bumps ?? '').split(' ').filter(Boolean);
}
