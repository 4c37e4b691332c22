import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import sharp from 'sharp';
import type { CoverFormat } from '../../db/values.ts';

import { errors } from '../../errors.ts';
import { fileExists, mediaPath, newTempPath, variantPath } from '../media/index.ts';
import { renderVariant } from './covers.image.ts';

/**
 * Widths a client may ask for with `?w=`. A fixed set: every resized copy is rendered once and
 * kept, and the address needs no key, so any width would let anyone fill the disk.
 */
export const VARIANT_WIDTHS = [
  100, 150, 200, 300, 400, 500, 600, 640, 800, 1000, 1200, 1400, 1500, 2000, 3000,
] as const;

const FILE_NAME = /^([0-9a-f]{64})\.(jpg|png)$/;
const FORMAT_OF_EXTENSION: Readonly<Record<string, CoverFormat>> = { jpg: 'jpeg', png: 'png' };

/** A cover file ready to be sent. */
export interface CoverFile {
  readonly path: string;
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

function fileOf(path: string, name: CoverName, width: number | null): CoverFile {
  const tag = width === null ? name.sha256 : `${name.sha256}-w${width}`;
  return { path, contentType: `image/${name.format}`, etag: `"${tag}"` };
}

/** Two requests for the same new variant share one rendering. */
const rendering = new Map<string, Promise<void>>();

async function renderOnce(
  dataDir: string,
  source: string,
  target: string,
  name: CoverName,
  width: number,
): Promise<void> {
  const temp = await newTempPath(dataDir);
  try {
    await renderVariant(source, temp, name.format, width);
    await mkdir(dirname(target), { recursive: true });
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
}

function ensureVariant(
  dataDir: string,
  source: string,
  target: string,
  name: CoverName,
  width: number,
): Promise<void> {
  const pending = rendering.get(target);
  if (pending) return pending;
  const started = renderOnce(dataDir, source, target, name, width).finally(() => rendering.delete(target));
  rendering.set(target, started);
  return started;
}

/**
 * The stored cover `fileName` (`<sha256>.<jpg|png>`), or its copy `width` pixels wide, rendered on
 * first request and kept on disk. A width not below the original's serves the original: a cover
 * is never enlarged. 404 for a name that is not a stored cover.
 */
export async function findCoverFile(
  dataDir: string,
  fileName: string,
  width: number | null,
): Promise<CoverFile> {
  const name = parseName(fileName);
  const original = mediaPath(dataDir, 'covers', name.sha256, name.ext);
  // Checked first even when a variant is cached: a removed cover stops being served at once.
  if (!(await fileExists(original))) throw errors.notFound('Cover');
  if (width === null) return fileOf(original, name, null);
  const variant = variantPath(dataDir, 'covers', name.sha256, name.ext, width);
  if (await fileExists(variant)) return fileOf(variant, name, width);
  const { width: originalWidth } = await sharp(original).metadata();
  if (width >= originalWidth) return fileOf(original, name, null);
  await ensureVariant(dataDir, original, variant, name, width);
  return fileOf(variant, name, width);
}
