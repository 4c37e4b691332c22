import type { MaybePromise } from '../lib/maybe-promise.ts';
import type { Db } from './database.ts';

/**
 * A token that changes whenever the database may have changed, or null where no cheap token
 * exists (PostgreSQL): there, nothing is cached and every read goes to the database.
 */
export type ChangeToken = () => string | null;

const changeTokens = new WeakMap<Db, ChangeToken>();

/** Called once by createDatabase for each database it opens. */
export function registerChangeToken(db: Db, token: ChangeToken): void {
  changeTokens.set(db, token);
}

interface CacheState<T> {
  token: string | null;
  entries: Map<string, T>;
}

/**
 * Reads that are repeated on every request (the caller's key, its label's usage) cached until the
 * database changes in any way: exact, because the token moves with every committed write, by this
 * process or any other, so a revoked key or a changed plan is seen on the next request.
 */
export function readCache<T>(maxEntries = 10_000) {
  const states = new WeakMap<Db, CacheState<T>>();

  async function loadAndKeep(state: CacheState<T>, key: string, load: () => Promise<T>, keep: () => boolean) {
    const value = await load();
    // Keep the value only if nothing was written while it loaded.
    if (keep()) {
      if (state.entries.size >= maxEntries) state.entries.clear();
      state.entries.set(key, value);
    }
    return value;
  }

  /** The kept value at once when there is one, else a promise of the loaded one. */
  return (db: Db, key: string, load: () => Promise<T>): MaybePromise<T> => {
    const tokenOf = changeTokens.get(db);
    const token = tokenOf ? tokenOf() : null;
    if (!tokenOf || token === null) return load();
    let state = states.get(db);
    if (!state || state.token !== token) {
      state = { token, entries: new Map() };
      states.set(db, state);
    }
    const cached = state.entries.get(key);
    if (cached !== undefined) return cached;
    return loadAndKeep(state, key, load, () => tokenOf() === token);
  };
}
