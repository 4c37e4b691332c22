import type { MaybePromise } from '../lib/maybe-promise.ts';
import type { Db } from './database.ts';

/**
 * How a database's cache learns what was committed (`db/invalidation.ts` implements it per engine and
 * channel): `check` runs before every read, evicts through the store what changed since the last
 * call where that can be read at once (SQLite), and says whether loaded values may be kept now
 * (not while the channel that would tell of a change is down).
 */
export interface Freshness {
  check(): boolean;
}

interface Entry {
  value: unknown;
  subjects: readonly string[];
}

/**
 * The kept values of one database, each with the subjects (`key:<id>`, `label:<id>`) whose version
 * it depends on: a bump of a subject evicts exactly the values that depend on it.
 */
export class CacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly bySubject = new Map<string, Set<string>>();
  /** Moves on every eviction: a value loaded across one is returned but not kept. */
  private generation = 0;
  /** Loads from the database, for tests that show what was served from memory. */
  loads = 0;
  readonly freshness: Freshness;

  constructor(
    freshnessFor: (store: CacheStore) => Freshness,
    private readonly maxEntries: number,
  ) {
    this.freshness = freshnessFor(this);
  }

  evict(subjects: Iterable<string>): void {
    this.generation++;
    for (const subject of subjects) {
      const ids = this.bySubject.get(subject);
      if (!ids) continue;
      this.bySubject.delete(subject);
      for (const id of ids) this.entries.delete(id);
    }
  }

  /** Everything: when the channel was lost, nobody can tell what changed meanwhile. */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.bySubject.clear();
  }

  get(id: string): unknown {
    return this.entries.get(id)?.value;
  }

  async load<T>(
    id: string,
    load: () => Promise<T>,
    subjectsOf: (value: T) => readonly string[] | null,
    keep: boolean,
  ): Promise<T> {
    const generation = this.generation;
    this.loads++;
    const value = await load();
    const subjects = subjectsOf(value);
    if (keep && subjects && generation === this.generation) this.keep(id, value, subjects);
    return value;
  }

  private keep(id: string, value: unknown, subjects: readonly string[]): void {
    if (this.entries.size >= this.maxEntries) this.clear();
    this.entries.set(id, { value, subjects });
    for (const subject of subjects) {
      let ids = this.bySubject.get(subject);
      if (!ids) {
        ids = new Set();
        this.bySubject.set(subject, ids);
      }
      ids.add(id);
    }
  }
}

const stores = new WeakMap<Db, CacheStore>();

/** Called once by createDatabase for each database it opens. */
export function attachCache(
  db: Db,
  freshnessFor: (store: CacheStore) => Freshness,
  maxEntries = 20_000,
): void {
  stores.set(db, new CacheStore(freshnessFor, maxEntries));
}

/** Loads from the database by the caches of `db` so far. */
export function cacheLoads(db: Db): number {
  return stores.get(db)?.loads ?? 0;
}

/**
 * Reads that are repeated on every request (the caller's key and label, its label's usage), kept
 * until a write changes a subject they depend on: `subjectsOf` names them from the loaded value, or
 * returns null for a value that must not be kept. A change committed by this process is seen on
 * its next request; one committed by another process as soon as the channel tells of it.
 */
export function readCache<T>(name: string) {
  /** The kept value at once when there is one, else a promise of the loaded one. */
  return (
    db: Db,
    key: string,
    load: () => Promise<T>,
    subjectsOf: (value: T) => readonly string[] | null,
  ): MaybePromise<T> => {
    const store = stores.get(db);
    if (!store) return load();
    const keep = store.freshness.check();
    const id = `${name}:${key}`;
    if (keep) {
      const kept = store.get(id);
      if (kept !== undefined) return kept as T;
    }
    return store.load(id, load, subjectsOf, keep);
  };
}

/** The subjects whose versions the triggers of migration 0012 bump (keep the two in step). */
export const keySubject = (id: number): string => `key:${id}`;
export const labelSubject = (id: number): string => `label:${id}`;
