import type { Db } from '../../db/database.ts';
import type { MediaKind } from './media.objects.ts';

export interface MediaLockRow {
  readonly holders: number;
  readonly held_until: string;
  readonly collecting_until: string | null;
}

/**
 * The object's lock row, made when missing and locked for the rest of the transaction: the upsert
 * writes, so PostgreSQL holds the row lock and SQLite its one writer lock until the commit.
 */
export async function lockObject(trx: Db, key: string, now: string): Promise<MediaLockRow> {
  return trx
    .insertInto('media_locks')
    .values({ object_key: key, holders: 0, held_until: now, collecting_until: null })
    .onConflict((oc) =>
      oc.column('object_key').doUpdateSet((eb) => ({ object_key: eb.ref('excluded.object_key') })),
    )
    .returning(['holders', 'held_until', 'collecting_until'])
    .executeTakeFirstOrThrow();
}

export async function setHold(trx: Db, key: string, holders: number, heldUntil: string): Promise<void> {
  await trx
    .updateTable('media_locks')
    .set({ holders, held_until: heldUntil })
    .where('object_key', '=', key)
    .execute();
}

export async function setCollecting(trx: Db, key: string, until: string | null): Promise<void> {
  await trx
    .updateTable('media_locks')
    .set({ collecting_until: until })
    .where('object_key', '=', key)
    .execute();
}

export async function dropHold(db: Db, key: string): Promise<void> {
  await db
    .updateTable('media_locks')
    .set((eb) => ({ holders: eb('holders', '-', 1) }))
    .where('object_key', '=', key)
    .where('holders', '>', 0)
    .execute();
}

/** Removes the row once nothing is under way on it (holds that ran out count as none). */
export async function deleteIdleLock(db: Db, key: string, now: string): Promise<void> {
  await db
    .deleteFrom('media_locks')
    .where('object_key', '=', key)
    .where('collecting_until', 'is', null)
    .where((eb) => eb.or([eb('holders', '<=', 0), eb('held_until', '<=', now)]))
    .execute();
}

export async function isReferenced(db: Db, kind: MediaKind, hash: string): Promise<boolean> {
  const row =
    kind === 'covers'
      ? await db
          .selectFrom('releases')
          .select('id')
          .where('cover_hash', '=', hash)
          .limit(1)
          .executeTakeFirst()
      : await db.selectFrom('tracks').select('id').where('audio_hash', '=', hash).limit(1).executeTakeFirst();
  return row !== undefined;
}
