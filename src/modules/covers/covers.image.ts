import sharp, { type Metadata } from 'sharp';
import { isCoverFormat } from '../../core/covers.ts';
import type { CoverFormat } from '../../db/values.ts';
import { errors } from '../../errors.ts';

/** Spec, "Other constants": square, at least 1400 px on a side, JPG or PNG. */
export const MIN_COVER_SIDE = 1400;
/**
 * Not in the spec: a guard against decompression bombs (a few KB of PNG can claim 50000x50000
 * pixels). Stores ask for 3000x3000; this leaves ample room above it.
 */
export const MAX_COVER_SIDE = 10000;

export interface CoverImage {
  readonly format: CoverFormat;
  readonly width: number;
  readonly height: number;
}

interface Dimensions {
  readonly width: number;
  readonly height: number;
}

function invalidCover(message: string, dimensions: Dimensions | null = null) {
  return errors.invalid('cover', message, dimensions ? { ...dimensions } : {});
}

async function readHeader(path: string): Promise<Metadata> {
  try {
    return await sharp(path).metadata();
  } catch {
    throw invalidCover('The cover is not a readable image; send a JPEG or PNG file');
  }
}

function checkDimensions(dimensions: Dimensions): void {
  const { width, height } = dimensions;
  if (width !== height) {
    throw invalidCover(`The cover must be square; it is ${width}x${height} px`, dimensions);
  }
  if (width < MIN_COVER_SIDE) {
    throw invalidCover(
      `The cover must be at least ${MIN_COVER_SIDE}x${MIN_COVER_SIDE} px; it is ${width}x${height} px`,
      dimensions,
    );
  }
  if (width > MAX_COVER_SIDE) {
    throw invalidCover(
      `The cover must be at most ${MAX_COVER_SIDE}x${MAX_COVER_SIDE} px; it is ${width}x${height} px`,
      dimensions,
    );
  }
}

/** The header can be whole while the pixels after it are not: every pixel is decoded once. */
async function decodeFully(path: string, dimensions: Dimensions): Promise<void> {
  try {
    await sharp(path, { failOn: 'error', limitInputPixels: MAX_COVER_SIDE * MAX_COVER_SIDE }).stats();
  } catch {
    throw invalidCover('The cover image is damaged or truncated', dimensions);
  }
}

/**
 * What the file really is, judged by decoding it (never by the declared content type), or 400
 * `invalid` on `cover` with the dimensions when they are known.
 */
export async function inspectCover(path: string): Promise<CoverImage> {
  const header = await readHeader(path);
  // Dimensions as displayed: a JPEG turned by its EXIF orientation is judged the way it is seen.
  const dimensions = { width: header.autoOrient.width, height: header.autoOrient.height };
  if (!isCoverFormat(header.format)) {
    throw invalidCover(`The cover must be a JPEG or PNG image; this is ${header.format}`, dimensions);
  }
  checkDimensions(dimensions);
  await decodeFully(path, dimensions);
  return { format: header.format, ...dimensions };
}

/** Writes a `width`-pixel copy of a stored cover in its own format, turned upright first. */
export async function renderVariant(
  sourcePath: string,
  targetPath: string,
  format: CoverFormat,
  width: number,
): Promise<void> {
  const resized = sharp(sourcePath).autoOrient().resize({ width, height: width, fit: 'inside' });
  const encoded = format === 'jpeg' ? resized.jpeg({ quality: 85 }) : resized.png();
  await encoded.toFile(targetPath);
}
