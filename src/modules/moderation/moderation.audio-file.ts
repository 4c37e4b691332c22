import type { FileHandle } from 'node:fs/promises';

/** Thrown where a file's structure cannot be followed; the analysis then reports no evidence. */
export class Undecodable extends Error {}

/** Up to `length` bytes from `position`: fewer where the file ends first. */
export async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
