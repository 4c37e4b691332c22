import type { AppContext } from '../../context.ts';
import { coverExtension, isCoverFormat } from '../../core/covers.ts';
import type { Db } from '../../db/database.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import {
  discardFile,
  keepFile,
  type MediaKind,
  type ReceivedFile,
  removeStoredFile,
  removeVariants,
} from './media.storage.ts';

export interface StoredFileRef {
  readonly hash: string;
  readonly format: string;
}

async function isReferenced(ctx: AppContext, kind: MediaKind, hash: string): Promise<boolean> {
  const row =
    kind === 'covers'
      ? await ctx.db
          .selectFrom('releases')
          .select('id')
          .where('cover_hash', '=', hash)
          .limit(1)
          .executeTakeFirst()
      : await ctx.db
          .selectFrom('tracks')
          .select('id')
          .where('audio_hash', '=', hash)
          .limit(1)
          .executeTakeFirst();
  return row !== undefined;
}

function extensionOf(kind: MediaKind, format: string): string | null {
  if (kind === 'audio') return format;
  return isCoverFormat(format) ? coverExtension(format) : null;
}

/**
 * Per stored file (`<kind>/<hash>`): how many uploads are between moving their copy into place and
 * committing the row that refers to it, and the collection under way. A collection that checked
 * "no row refers to it" must not remove a file an upload has just put back and is about to refer to.
 * The lock is in-process: stored files are on this server's disk (the data dir), and only the
 * serving process keeps and collects them; an operator's command queues its collection for the
 * server's worker (`queueMediaCollection`).
 */
const committing = new Map<string, number>();
const collecting = new Map<string, Promise<void>>();

const lockKey = (kind: MediaKind, hash: string) => `${kind}/${hash}`;

/**
 * Marks the file as being committed; waits for a collection of it that has already begun. The
 * check and the mark are in one turn of the event loop, so no collection starts between them.
 */
async function holdForCommit(key: string): Promise<void> {
  for (let running = collecting.get(key); running; running = collecting.get(key)) await running;
  committing.set(key, (committing.get(key) ?? 0) + 1);
}

function releaseCommitHold(key: string): void {
  const holders = (committing.get(key) ?? 1) - 1;
  if (holders > 0) committing.set(key, holders);
  else committing.delete(key);
}

async function removeIfUnreferenced(ctx: AppContext, kind: MediaKind, file: StoredFileRef): Promise<void> {
  const ext = extensionOf(kind, file.format);
  if (ext === null || (await isReferenced(ctx, kind, file.hash))) return;
  await removeStoredFile(ctx.config.dataDir, kind, file.hash, ext);
  if (kind === 'covers') await removeVariants(ctx.config.dataDir, kind, file.hash, ext);
}

/**
 * One file: skipped while an upload of the same content commits (its row will refer to the file,
 * or its failure collects the file again once it has let go).
 */
async function collect(ctx: AppContext, kind: MediaKind, file: StoredFileRef): Promise<void> {
  const key = lockKey(kind, file.hash);
  for (let running = collecting.get(key); running; running = collecting.get(key)) await running;
  if (committing.has(key)) return;
  const run = removeIfUnreferenced(ctx, kind, file).finally(() => collecting.delete(key));
  collecting.set(key, run);
  await run;
}

/**
 * Removes stored files that no row refers to any more. Files are shared by content (sandbox
 * copies, identical uploads), so a file goes only when its last reference has gone; called after
 * the transaction that dropped the reference has committed.
 */
export async function removeUnusedMedia(
  ctx: AppContext,
  kind: MediaKind,
  files: readonly StoredFileRef[],
): Promise<void> {
  for (const file of files) await collect(ctx, kind, file);
}

/**
 * Moves a checked upload into its content-addressed place and runs `refer`, the write that refers
 * to it, holding the file against collection until that write has committed or failed. When it
 * fails, the file goes again unless another row (a sandbox copy, an identical upload) refers to it.
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
  await holdForCommit(key);
  try {
    await keepFile(ctx.config.dataDir, file, kind, ext);
    const referred = await refer();
    releaseCommitHold(key);
    return referred;
  } catch (error) {
    releaseCommitHold(key);
    await discardFile(file);
    await collect(ctx, kind, { hash: file.sha256, format });
    throw error;
  }
}

export const MEDIA_COLLECT_JOB = 'media.collect';

interface CollectionJob {
  covers: StoredFileRef[];
  audio: StoredFileRef[];
}

/**
 * Collection asked for by a process that keeps no uploads (`labeldesk sandbox reset`): its lock
 * would not see the server's uploads, so the server's worker collects, under the lock they take.
 */
export async function queueMediaCollection(db: Db, files: CollectionJob, at: Date): Promise<void> {
  if (files.covers.length === 0 && files.audio.length === 0) return;
  await enqueue(db, [{ kind: MEDIA_COLLECT_JOB, payload: files, runAt: at }], at);
}

export function mediaCollectionHandler(ctx: AppContext): JobHandler {
  return async (job) => {
    const files = job.payload as CollectionJob;
    await removeUnusedMedia(ctx, 'covers', files.covers);
    await removeUnusedMedia(ctx, 'audio', files.audio);
    return undefined;
  };
}
