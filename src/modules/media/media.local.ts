import { copyFile, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MediaObjects, OpenedObject } from './media.objects.ts';

const TEMP_FOLDER = 'tmp';

async function isFile(path: string): Promise<boolean> {
  const handle = await open(path).catch(() => null);
  if (!handle) return false;
  try {
    return (await handle.stat()).isFile();
  } finally {
    await handle.close();
  }
}

async function* filesUnder(root: string, folder: string): AsyncGenerator<string> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (folder !== root || entry.name !== TEMP_FOLDER) yield* filesUnder(root, path);
    } else if (entry.isFile()) {
      yield relative(root, path).split(sep).join('/');
    }
  }
}

/**
 * Objects as files under `root` (the default: `<data dir>/media`). Files on their way in wait in
 * `root/tmp`, on the same disk, and are renamed into place when whole: a reader never sees half a file.
 */
export function localMediaObjects(root: string): MediaObjects {
  const tempDir = join(root, TEMP_FOLDER);
  const pathOf = (key: string) => join(root, ...key.split('/'));
  return {
    tempDir,
    url: pathToFileURL(root).href,
    async put(key, path, mode) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      if (mode === 'move') {
        await rename(path, target);
        return;
      }
      const temp = join(tempDir, `${Date.now()}-${key.replaceAll('/', '_')}`);
      await mkdir(tempDir, { recursive: true });
      await copyFile(path, temp);
      await rename(temp, target);
    },
    has: (key) => isFile(pathOf(key)),
    async open(key): Promise<OpenedObject | null> {
      // Opened before its size is read, so a file removed meanwhile is still sent whole (or not found).
      const handle = await open(pathOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (!handle) return null;
      try {
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), bytes: size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async withLocalFile(key, use) {
      const path = pathOf(key);
      return (await isFile(path)) ? use(path) : null;
    },
    async remove(keys) {
      await Promise.all(keys.map((key) => rm(pathOf(key), { force: true })));
    },
    keys: () => filesUnder(root, root),
  };
}
