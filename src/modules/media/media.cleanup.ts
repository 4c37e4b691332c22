import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { coverExtension, isCoverFormat, VARIANT_WIDTHS } from '../../core/covers.ts';
import type { Db } from '../../db/database.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { type MediaKind, mediaObjects, objectKey, variantKey } from './media.objects.ts';
import { discardFile, type ReceivedFile } from './media.storage.ts';
import { deleteIdleLock, dropHold, isReferenced, lockObject, setCollecting, setHold } from './media.store.ts';

/**
 * Stored objects are shared by content, so an object goes only when no row refers to it, and the
 * check and the removal must not race an upload of the same content in another process (several
 * servers share one database and one bucket). The protocol, on the `media_locks` row of the object:
 *
 * - An upload takes a hold (a committed row update) before it puts the object, and lets go only
 *   after the transaction that refers to the object has committed or failed.
 * - A collection decides in one transaction that locks the row: no live hold, no row referring to
 *   the object; it then marks the row `collecting_until` and commits before it removes anything.
 * - Both transactions begin by writing the row, so they run one after the other. If the hold came
 *   first, the collection sees it (or, once it was let go, the committed reference) and keeps the
 *   object. If the collection came first, the upload sees the mark and waits for the removal to
 *   finish before it puts the object again.
 *
 * Times bound what a process that died leaves behind: its hold counts for HOLD_MS, its collection
 * mark for COLLECTION_MS (and a collection that finds its own mark run out removes nothing).
 */
const HOLD_MS = 60 * 60 * 1000;
const COLLECTION_MS = 2 * 60 * 1000;
const WAIT_FOR_COLLECTION_MS = 50;

export interface StoredFileRef {
  readonly hash: string;
  readonly format: string;
}

function extensionOf(kind: MediaKind, format: string): string | null {
  if (kind === 'audio') return format;
  return isCoverFormat(format) ? coverExtension(format) : null;
}

const lockKey = (kind: MediaKind, hash: string) => `${kind}/${hash}`;
const later = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

/** Takes a hold on the object; waits while a collection of it that has already begun removes it. */
async function hold(ctx: AppContext, key: string): Promise<void> {
  for (;;) {
    const now = ctx.clock.now();
    const at = now.toISOString();
    const held = await ctx.db.transaction().execute(async (trx) => {
      const row = await lockObject(trx, key, at);
      if (row.collecting_until !== null && row.collecting_until > at) return false;
      const until = later(now, HOLD_MS);
      const live = row.held_until > at ? row.holders : 0;
      await setHold(trx, key, live + 1, until > row.held_until ? until : row.held_until);
      return true;
    });
    if (held) return;
    await sleep(WAIT_FOR_COLLECTION_MS);
  }
}

async function letGo(db: Db, key: string, at: string): Promise<void> {
  await dropHold(db, key);
  await deleteIdleLock(db, key, at);
}

type Claim =
  | { readonly outcome: 'claimed'; readonly until: string }
  /** An upload of the same content holds it until then: looked at again once that has passed. */
  | { readonly outcome: 'held'; readonly until: string }
  | { readonly outcome: 'kept' };

/** Marks the object as being collected when nothing holds or refers to it. */
async function claimForCollection(ctx: AppContext, kind: MediaKind, hash: string, now: Date): Promise<Claim> {
  const key = lockKey(kind, hash);
  const at = now.toISOString();
  const claim = await ctx.db.transaction().execute(async (trx): Promise<Claim> => {
    const row = await lockObject(trx, key, at);
    if (row.holders > 0 && row.held_until > at) return { outcome: 'held', until: row.held_until };
    const collecting = row.collecting_until !== null && row.collecting_until > at;
    if (collecting || (await isReferenced(trx, kind, hash))) return { outcome: 'kept' };
    const until = later(now, COLLECTION_MS);
    await setCollecting(trx, key, until);
    return { outcome: 'claimed', until };
  });
  if (claim.outcome !== 'claimed') await deleteIdleLock(ctx.db, key, at);
  return claim;
}

async function collect(ctx: AppContext, kind: MediaKind, file: StoredFileRef): Promise<void> {
  const ext = extensionOf(kind, file.format);
  if (ext === null) return;
  const claim = await claimForCollection(ctx, kind, file.hash, ctx.clock.now());
  if (claim.outcome === 'held') {
    // Usually the upload commits a reference; if its process died instead, this job collects.
    const files = kind === 'covers' ? { covers: [file], audio: [] } : { covers: [], audio: [file] };
    await queueMediaCollection(ctx.db, files, new Date(claim.until));
  }
  if (claim.outcome !== 'claimed') return;
  const key = lockKey(kind, file.hash);
  try {
    if (ctx.clock.now().toISOString() >= claim.until) return;
    const keys = [objectKey(kind, file.hash, ext)];
    if (kind === 'covers')
      keys.push(...VARIANT_WIDTHS.map((width) => variantKey(kind, file.hash, ext, width)));
    await mediaObjects(ctx.config).remove(keys);
  } finally {
    await setCollecting(ctx.db, key, null);
    await deleteIdleLock(ctx.db, key, ctx.clock.now().toISOString());
  }
}

export const MEDIA_COLLECT_JOB = 'media.collect';

interface CollectionJob {
  covers: StoredFileRef[];
  audio: StoredFileRef[];
}

/**
 * Collection by the job queue: asked for by a process that serves no uploads (`labeldesk sandbox
 * reset`), and the retry of a collection that failed (the store could not be reached).
 */
export async function queueMediaCollection(db: Db, files: CollectionJob, at: Date): Promise<void> {
  if (files.covers.length === 0 && files.audio.length === 0) return;
  await enqueue(db, [{ kind: MEDIA_COLLECT_JOB, payload: files, runAt: at }], at);
}

/**
 * Removes stored objects that no row refers to any more; called after the transaction that dropped
 * the reference has committed. What cannot be removed now is left to the job queue.
 */
export async function removeUnusedMedia(
  ctx: AppContext,
  kind: MediaKind,
  files: readonly StoredFileRef[],
): Promise<void> {
  const failed: StoredFileRef[] = [];
  for (const file of files) {
    await collect(ctx, kind, file).catch(() => failed.push(file));
  }
  const empty: StoredFileRef[] = [];
  await queueMediaCollection(
    ctx.db,
    kind === 'covers' ? { covers: failed, audio: empty } : { covers: empty, audio: failed },
    ctx.clock.now(),
  );
}

/**
 * Puts a checked upload into the store under its content hash and runs `refer`, the write that
 * refers to it, holding the object against collection until that write has committed or failed.
 * When it fails, the object goes again unless another row (a sandbox copy, an identical upload)
 * refers to it.
 */
export async function keepUpload<T>(
  ctx: AppContext,
  kind: MediaKind,
  file: ReceivedFile,
  format: string,
  refer: () => Promise<T>,
): Promise<T> {
  const ext = extensionOf(kind, format);
  if (ext === null) throw new Error(`${format} is not a stored ${kind} format`);
  const key = lockKey(kind, file.sha256);
  await hold(ctx, key);
  try {
    await mediaObjects(ctx.config).put(objectKey(kind, file.sha256, ext), file.tempPath, 'move');
    const referred = await refer();
    await letGo(ctx.db, key, ctx.clock.now().toISOString());
    return referred;
  } catch (error) {
    await letGo(ctx.db, key, ctx.clock.now().toISOString());
    await discardFile(file);
    await removeUnusedMedia(ctx, kind, [{ hash: file.sha256, format }]);
    throw error;
  }
}

export function mediaCollectionHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const files = job.payload as CollectionJob;
    for (const file of files.covers) await collect(ctx, 'covers', file);
    for (const file of files.audio) await collect(ctx, 'audio', file);
    return undefined;
  };
}
