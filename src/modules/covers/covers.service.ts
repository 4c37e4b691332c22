import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import {
  assertDraft,
  changeRelease,
  loadRelease,
  type ReleaseRow,
  updateRelease,
} from '../../core/releases.ts';
import type { Workspace } from '../../db/scope.ts';
import type { CoverFormat } from '../../db/values.ts';
import {
  discardFile,
  keepUpload,
  mediaObjects,
  type ReceivedFile,
  receiveToTemp,
  removeUnusedMedia,
} from '../media/index.ts';
import { type CoverImage, inspectCover } from './covers.image.ts';

/** Larger uploads are refused with 413 (the spec sets no size; a 3000x3000 JPEG is usually 2 to 6 MB). */
export const MAX_COVER_BYTES = 20 * 1024 * 1024;

const CHANGING_THE_COVER = 'Changing the cover';

export interface StoredCover {
  readonly sha256: string;
  readonly format: CoverFormat;
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
}

async function loadDraft(ctx: AppContext, workspace: Workspace, releaseId: number): Promise<ReleaseRow> {
  const release = await loadRelease(ctx.db, workspace, releaseId);
  assertDraft(release, CHANGING_THE_COVER);
  return release;
}

async function storeCover(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
  file: ReceivedFile,
  image: CoverImage,
): Promise<ReleaseRow> {
  const format = image.format;
  // The release is locked and checked again: an upload takes a while, and the release may have been
  // submitted or deleted meanwhile (then the file goes again, unless another release shows it).
  return keepUpload(ctx, 'covers', file, format, () =>
    changeRelease(ctx, workspace, releaseId, async (trx, release, at) => {
      assertDraft(release, CHANGING_THE_COVER);
      await updateRelease(trx, workspace.id, releaseId, {
        cover_hash: file.sha256,
        cover_format: format,
        cover_width: image.width,
        cover_height: image.height,
        cover_bytes: file.bytes,
        updated_at: at,
      });
      return release;
    }),
  );
}

/** The replaced cover's file and its resized copies go once no release (a sandbox copy) shows it. */
async function forgetCover(ctx: AppContext, previous: ReleaseRow, current: StoredCover): Promise<void> {
  const { cover_hash: hash, cover_format: format } = previous;
  if (hash === null || format === null || hash === current.sha256) return;
  await removeUnusedMedia(ctx, 'covers', [{ hash, format }]);
}

/** The image bytes of an upload, and what must hold once they are received (an Idempotency-Key's binding). */
export interface CoverUpload {
  open(): Promise<Readable>;
  received(file: ReceivedFile): Promise<void>;
}

/**
 * PUT /releases/{id}/cover: the release is checked before a byte is read, the upload is judged by
 * decoding it, and only a good image replaces the cover.
 */
export async function replaceCover(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
  upload: CoverUpload,
): Promise<StoredCover> {
  await loadDraft(ctx, workspace, releaseId);
  const { tempDir } = mediaObjects(ctx.config);
  const file = await receiveToTemp(tempDir, await upload.open(), MAX_COVER_BYTES, 'The cover');
  try {
    await upload.received(file);
    const image = await inspectCover(file.tempPath);
    const previous = await storeCover(ctx, workspace, releaseId, file, image);
    const stored = { sha256: file.sha256, bytes: file.bytes, ...image };
    await forgetCover(ctx, previous, stored);
    return stored;
  } finally {
    // Nothing left in the temp folder: a kept file is in the store, anything else is refused.
    await discardFile(file);
  }
}
