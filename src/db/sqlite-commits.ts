import type SqliteDatabase from 'better-sqlite3';
import type { Db } from './database.ts';
import { attachCache } from './read-cache.ts';

/*
 * How a process on SQLite learns which cached callers a commit changed (see db/invalidation.ts for
 * the whole scheme): the `cache_versions` rows above the last version seen, read before a cached
 * read when the file moved (`pragma data_version`: another connection's commit) or this connection
 * wrote. No other channel is needed: every process reads the same file.
 */

/**
 * `pragma data_version` moves when another connection commits. Reading it takes the WAL lock, a few
 * microseconds, so it is read at most once per event-loop turn: a request sent after another
 * process's commit arrives in a later turn.
 */
function commitsByOtherConnections(sqlite: SqliteDatabase.Database): () => unknown {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let current: unknown;
  let fresh = false;
  const expire = () => {
    fresh = false;
  };
  return () => {
    if (!fresh) {
      current = dataVersion.get();
      fresh = true;
      setImmediate(expire);
    }
    return current;
  };
}

interface Bump {
  subject: string;
  version: number;
}

/** The bumps committed after the last one seen; `ownWrites` counts this connection's writing statements. */
export function watchSqliteCommits(db: Db, sqlite: SqliteDatabase.Database, ownWrites: () => number): void {
  attachCache(db, (store) => {
    const othersCommits = commitsByOtherConnections(sqlite);
    let seenMark: string | null = null;
    let seenVersion: number | null = null;
    let newer: SqliteDatabase.Statement<[number], Bump> | null = null;
    return {
      check() {
        if (!sqlite.open) return false;
        // Inside this connection's open transaction the rows are not committed yet (they may roll
        // back): what is kept still holds until the commit, which the next check after it reads.
        if (sqlite.inTransaction) return seenVersion !== null;
        const mark = `${othersCommits()}:${ownWrites()}`;
        if (mark === seenMark) return true;
        try {
          if (newer === null || seenVersion === null) {
            // Before the migrations have run there is no table, and nothing is kept.
            const latest = sqlite
              .prepare('select coalesce(max(version), 0) as v from cache_versions')
              .pluck();
            seenVersion = Number(latest.get());
            newer = sqlite.prepare<[number], Bump>(
              'select subject, version from cache_versions where version > ? order by version',
            );
            store.clear();
          } else {
            const bumps = newer.all(seenVersion);
            const last = bumps.at(-1);
            if (last) {
              store.evict(bumps.map((bump) => bump.subject));
              seenVersion = last.version;
            }
          }
          seenMark = mark;
          return true;
        } catch {
          return false;
        }
      },
    };
  });
}
