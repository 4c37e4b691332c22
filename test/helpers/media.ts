import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type MediaKind, objectKey, variantKey } from '../../src/modules/media/media.objects.ts';

export type { MediaKind };

/** The default media store: files under the data dir's media/ folder (MEDIA_URL unset). */
export function mediaRoot(dataDir: string): string {
  return join(dataDir, 'media');
}

export function mediaPath(dataDir: string, kind: MediaKind, sha256: string, ext: string): string {
  return join(mediaRoot(dataDir), ...objectKey(kind, sha256, ext).split('/'));
}

export function variantPath(
  dataDir: string,
  kind: MediaKind,
  sha256: string,
  ext: string,
  width: number,
): string {
  return join(mediaRoot(dataDir), ...variantKey(kind, sha256, ext, width).split('/'));
}

export async function fileExists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}
