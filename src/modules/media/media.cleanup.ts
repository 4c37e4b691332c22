import type { AppContext } from '../../context.ts';
import { coverExtension, isCoverFormat } from '../covers/covers.urls.ts';
import { type MediaKind, removeStoredFile, removeVariants } from './media.storage.ts';

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
 * Removes stored files that no row refers to any more. Files are shared by content (sandbox
 * copies, identical uploads), so a file goes only when its last reference has gone; called after
 * the transaction that dropped the reference has committed.
 */
export async function removeUnusedMedia(
  ctx: AppContext,
  kind: MediaKind,
  files: readonly StoredFileRef[],
): Promise<void> {
  for (const file of files) {
    const ext = extensionOf(kind, file.format);
    if (ext === null || (await isReferenced(ctx, kind, file.hash))) continue;
    await removeStoredFile(ctx.config.dataDir, kind, file.hash, ext);
    if (kind === 'covers') await removeVariants(ctx.config.dataDir, kind, file.hash, ext);
  }
}

/**
 * Runs the write that refers to a just-kept file; when it fails, the file goes again unless
 * another row (a sandbox copy, an identical upload) refers to the same content.
 */
export async function referStoredFile<T>(
  ctx: AppContext,
  kind: MediaKind,
  stored: StoredFileRef,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    await removeUnusedMedia(ctx, kind, [stored]);
    throw error;
  }
}
