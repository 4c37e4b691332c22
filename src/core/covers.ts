import type { CoverFormat } from '../db/values.ts';

/**
 * Cover addresses are ours (served by GET /media/covers/...), named by content so that a new
 * upload gets a new address and a client's cached copy of the old one is never wrong.
 */

/**
 * Widths a client may ask for with `?w=`. A fixed set: every resized copy is rendered once and
 * kept, and the address needs no key, so any width would let anyone fill the store.
 */
export const VARIANT_WIDTHS = [
  100, 150, 200, 300, 400, 500, 600, 640, 800, 1000, 1200, 1400, 1500, 2000, 3000,
] as const;

export type VariantWidth = (typeof VARIANT_WIDTHS)[number];

const EXTENSIONS: Readonly<Record<CoverFormat, string>> = { jpeg: 'jpg', png: 'png' };

export function coverExtension(format: CoverFormat): string {
  return EXTENSIONS[format];
}

export function isCoverFormat(value: string | null): value is CoverFormat {
  return value === 'jpeg' || value === 'png';
}

/** The address of a stored cover file. */
export function coverFileUrl(baseUrl: string, sha256: string, format: CoverFormat): string {
  return `${baseUrl}/media/covers/${sha256}.${coverExtension(format)}`;
}

/** The cover's public address, or null while the release has no cover. */
export function coverUrl(
  baseUrl: string,
  release: { cover_hash: string | null; cover_format: CoverFormat | null },
): string | null {
  if (release.cover_hash === null || release.cover_format === null) return null;
  return coverFileUrl(baseUrl, release.cover_hash, release.cover_format);
}

/** The address of a cover resized to `width` (the cover itself when it is no wider). */
export function coverVariantUrl(coverUrl: string, width: VariantWidth): string {
  return `${coverUrl}?w=${width}`;
}
