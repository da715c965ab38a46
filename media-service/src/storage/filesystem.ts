import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { contentTypeOfKey, isImageKey } from '../domain/image-key.js';
import { CHUNK_BYTES, type ImageStorage } from './types.js';

/** Options of the filesystem store. */
export interface FilesystemStorageOptions {
  /** Root directory of the images, e.g. `${DATA_DIR}/media`; created when missing. */
  dir: string;
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Images as files under a two-level fan-out (`ab/cd/abcd….png`), so no directory grows past a few
 * thousand entries. Writes go to a temporary file that is fsynced and renamed into place: a reader
 * or a crash never sees half an image.
 */
export function createFilesystemStorage(options: FilesystemStorageOptions): ImageStorage {
  const root = resolve(options.dir);

  function pathOf(key: string): string {
    // Second guard after the domain's check: only a generated key may become a path.
    if (!isImageKey(key)) throw new Error('refusing a key that is not an image key');
    return join(root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async function exists(path: string): Promise<boolean> {
    try {
      await stat(path);
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  /** Makes the rename itself durable, not only the file's contents. */
  async function syncDirectory(dir: string): Promise<void> {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  return {
    description: `filesystem ${root}`,

    async put(key, bytes) {
      const target = pathOf(key);
      if (await exists(target)) return false;
      const dir = dirname(target);
      await mkdir(dir, { recursive: true });
      const temp = join(dir, `.${key}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        const handle = await open(temp, 'wx', 0o644);
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        // Two concurrent writers of one key rename identical bytes over each other: harmless.
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      await syncDirectory(dir);
      return true;
    },

    async open(key, signal) {
      if (!isImageKey(key)) return null;
      let handle;
      try {
        handle = await open(pathOf(key), 'r');
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
      try {
        const { size } = await handle.stat();
        // The stream owns the handle from here: it closes it at the end, on error and on abort.
        const chunks = handle.createReadStream({ highWaterMark: CHUNK_BYTES, signal });
        return { contentType: contentTypeOfKey(key), size, chunks };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async check() {
      await mkdir(root, { recursive: true });
      await access(root, constants.R_OK | constants.W_OK);
    },

    async close() {},
  };
}
