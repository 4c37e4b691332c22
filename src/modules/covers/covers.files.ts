import { rm } from 'node:fs/promises';
import sharp from 'sharp';
import type { CoverFormat } from '../../db/values.ts';
import { errors } from '../../errors.ts';
import { type MediaObjects, newTempPath, objectKey, variantKey } from '../media/index.ts';
import { renderVariant } from './covers.image.ts';

const FILE_NAME = /^([0-9a-f]{64})\.(jpg|png)$/;
const FORMAT_OF_EXTENSION: Readonly<Record<string, CoverFormat>> = { jpg: 'jpeg', png: 'png' };

/** A cover object ready to be sent. */
export interface CoverFile {
  readonly key: string;
  readonly contentType: 'image/jpeg' | 'image/png';
  /** Strong and cheap: the content hash (and width) says exactly which bytes these are. */
  readonly etag: string;
}

interface CoverName {
  readonly sha256: string;
  readonly ext: string;
  readonly format: CoverFormat;
}

function parseName(fileName: string): CoverName {
  const [, sha256, ext] = FILE_NAME.exec(fileName) ?? [];
  const format = ext === undefined ? undefined : FORMAT_OF_EXTENSION[ext];
  if (sha256 === undefined || ext === undefined || format === undefined) throw errors.notFound('Cover');
  return { sha256, ext, format };
}

function fileOf(key: string, name: CoverName, width: number | null): CoverFile {
  const tag = width === null ? name.sha256 : `${name.sha256}-w${width}`;
  return { key, contentType: `image/${name.format}`, etag: `"${tag}"` };
}

/**
 * Renders the variant from the original (read into a local file when the store is a bucket) and
 * puts it into the store; false when the original is no wider than asked (a cover is never enlarged).
 */
async function renderOnce(
  objects: MediaObjects,
  original: string,
  variant: string,
  name: CoverName,
  width: number,
): Promise<boolean> {
  const rendered = await objects.withLocalFile(original, async (source) => {
    const { width: originalWidth } = await sharp(source).metadata();
    if (width >= originalWidth) return false;
    const temp = await newTempPath(objects.tempDir);
    try {
      await renderVariant(source, temp, name.format, width);
      await objects.put(variant, temp, 'move');
    } finally {
      await rm(temp, { force: true });
    }
    return true;
  });
  if (rendered === null) throw errors.notFound('Cover');
  return rendered;
}

/** Two requests for the same new variant in one process share one rendering. */
const rendering = new Map<string, Promise<boolean>>();

function ensureVariant(
  objects: MediaObjects,
  original: string,
  variant: string,
  name: CoverName,
  width: number,
): Promise<boolean> {
  const pending = rendering.get(variant);
  if (pending) return pending;
  const started = renderOnce(objects, original, variant, name, width).finally(() =>
    rendering.delete(variant),
  );
  rendering.set(variant, started);
  return started;
}

/**
 * The stored cover `fileName` (`<sha256>.<jpg|png>`), or its copy `width` pixels wide, rendered on
 * first request and kept in the store. A width not below the original's serves the original: a
 * cover is never enlarged. 404 for a name that is not a stored cover.
 */
export async function findCoverFile(
  objects: MediaObjects,
  fileName: string,
  width: number | null,
): Promise<CoverFile> {
  const name = parseName(fileName);
  const original = objectKey('covers', name.sha256, name.ext);
  // Checked first even when a variant is kept: a removed cover stops being served at once.
  if (!(await objects.has(original))) throw errors.notFound('Cover');
  if (width === null) return fileOf(original, name, null);
  const variant = variantKey('covers', name.sha256, name.ext, width);
  if (await objects.has(variant)) return fileOf(variant, name, width);
  const resized = await ensureVariant(objects, original, variant, name, width);
  return resized ? fileOf(variant, name, width) : fileOf(original, name, null);
}
