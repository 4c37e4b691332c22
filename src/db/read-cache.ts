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
  name: string;
  key: string;
  value: unknown;
  subjects: readonly string[];
}

/**
 * The kept values of one database, each with the subjects (`key:<id>`, `label:<id>`, `link:<id>`, …)
 * whose version it depends on: a bump of a subject evicts exactly the values that depend on it. Each
 * cache (by name) holds at most its own number of values, so that one filled with guessed addresses
 * or keys pushes out only its own least recently used values, never another cache's.
 */
export class CacheStore {
  /** Each cache's values by key, the least recently used first. */
  private readonly caches = new Map<string, Map<string, Entry>>();
  private readonly bySubject = new Map<string, Set<Entry>>();
  /** Moves on every eviction: a value loaded across one is returned but not kept. */
  private generation = 0;
  /** Loads from the database, for tests that show what was served from memory. */
  loads = 0;
  readonly freshness: Freshness;

  constructor(freshnessFor: (store: CacheStore) => Freshness) {
    this.freshness = freshnessFor(this);
  }

  evict(subjects: Iterable<string>): void {
    this.generation++;
    for (const subject of subjects) {
      const entries = this.bySubject.get(subject);
      if (!entries) continue;
      this.bySubject.delete(subject);
      for (const entry of entries) this.forget(entry);
    }
  }

  /** Everything: when the channel was lost, nobody can tell what changed meanwhile. */
  clear(): void {
    this.generation++;
    this.caches.clear();
    this.bySubject.clear();
  }

  get(name: string, key: string): unknown {
    const cache = this.caches.get(name);
    const entry = cache?.get(key);
    if (!cache || !entry) return undefined;
    cache.delete(key);
    cache.set(key, entry);
    return entry.value;
  }

  async load<T>(
    entry: { name: string; key: string; maxEntries: number },
    load: () => Promise<T>,
    subjectsOf: (value: T) => readonly string[] | null,
    keep: boolean,
  ): Promise<T> {
    const generation = this.generation;
    this.loads++;
    const value = await load();
    const subjects = subjectsOf(value);
    if (keep && subjects && generation === this.generation) {
      this.keep({ name: entry.name, key: entry.key, value, subjects }, entry.maxEntries);
    }
    return value;
  }

  private keep(entry: Entry, maxEntries: number): void {
    let cache = this.caches.get(entry.name);
    if (!cache) {
      cache = new Map();
      this.caches.set(entry.name, cache);
    }
    const previous = cache.get(entry.key);
    if (previous) this.forget(previous);
    const leastRecent = cache.size >= maxEntries ? cache.values().next().value : undefined;
    if (leastRecent) this.forget(leastRecent);
    cache.set(entry.key, entry);
    for (const subject of entry.subjects) {
      let entries = this.bySubject.get(subject);
      if (!entries) {
        entries = new Set();
        this.bySubject.set(subject, entries);
      }
      entries.add(entry);
    }
  }

  private forget(entry: Entry): void {
    const cache = this.caches.get(entry.name);
    if (cache?.get(entry.key) === entry) cache.delete(entry.key);
    for (const subject of entry.subjects) {
      const entries = this.bySubject.get(subject);
      entries?.delete(entry);
      if (entries?.size === 0) this.bySubject.delete(subject);
    }
  }
}

const stores = new WeakMap<Db, CacheStore>();

/** Called once by createDatabase for each database it opens. */
export function attachCache(db: Db, freshnessFor: (store: CacheStore) => Freshness): void {
  stores.set(db, new CacheStore(freshnessFor));
}

/** Loads from the database by the caches of `db` so far. */
export function cacheLoads(db: Db): number {
  return stores.get(db)?.loads ?? 0;
}

/**
 * Reads that are repeated on every request (the caller's key and label, its label's usage, a
 * smart-link page), kept until a write changes a subject they depend on: `subjectsOf` names them
 * from the loaded value, or returns null for a value that must not be kept. A change committed by
 * this process is seen on its next request; one committed by another process as soon as the
 * channel tells of it. At most `maxEntries` values are kept for each database.
 */
export function readCache<T>(name: string, maxEntries = 20_000) {
  /**
   * The kept value at once when there is one (and `isCurrent` holds for it: a value that turns with
   * time is loaded again once it has), else a promise of the loaded one.
   */
  return (
    db: Db,
    key: string,
    load: () => Promise<T>,
    subjectsOf: (value: T) => readonly string[] | null,
    isCurrent: (value: T) => boolean = () => true,
  ): MaybePromise<T> => {
    const store = stores.get(db);
    if (!store) return load();
    const keep = store.freshness.check();
    if (keep) {
      const kept = store.get(name, key) as T | undefined;
      if (kept !== undefined && isCurrent(kept)) return kept;
    }
    return store.load({ name, key, maxEntries }, load, subjectsOf, keep);
  };
}

/** The subjects whose versions the triggers of migrations 0012 and 0015 bump (keep them in step). */
export const keySubject = (id: number): string => `key:${id}`;
export const labelSubject = (id: number): string => `label:${id}`;
export const linkSubject = (id: number): string => `link:${id}`;
export const releaseSubject = (id: number): string => `release:${id}`;
/** A smart link's code or slug, as stored (a slug in lowercase). */
export const addressSubject = (address: string): string => `address:${address}`;
