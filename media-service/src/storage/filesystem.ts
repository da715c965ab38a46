import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { contentTypeOfKey, isImageKey } from '../domain/image-key.js';
import { nodeFileOps, type FileOps } from './file-ops.js';
import { CHUNK_BYTES, type ImageStorage } from './types.js';

/** Options of the filesystem store. */
interface FilesystemStorageOptions {
  /** Root directory of the images, e.g. `${DATA_DIR}/media`; created when missing. */
  dir: string;
  /** The write path's file-system calls; tests wrap the real ones. */
  fileOps?: FileOps;
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Makes a directory entry (a rename, a new subdirectory) durable, not only a file's contents. */
async function syncDirectory(ops: FileOps, dir: string): Promise<void> {
  const fd = await ops.openDirectory(dir);
  try {
    await ops.fsync(fd);
  } finally {
    await ops.close(fd);
  }
}

/**
 * Creates temporary files in fan-out directories, making each directory once per process (with its
 * parents synced, so the new entry is durable): a put then costs no mkdir. At most 256 entries. A
 * directory removed behind our back is noticed by the ENOENT of the next open and made again.
 */
function createTempFiles(ops: FileOps): (dir: string, temp: string) => Promise<number> {
  const knownDirs = new Set<string>();

  async function ensureDirectory(dir: string): Promise<void> {
    const first = await mkdir(dir, { recursive: true });
    if (first !== undefined) {
      for (let made = dir; made.length >= first.length; made = dirname(made)) await syncDirectory(ops, dirname(made));
    }
    knownDirs.add(dir);
  }

  return async (dir, temp) => {
    if (!knownDirs.has(dir)) await ensureDirectory(dir);
    try {
      return await ops.createExclusive(temp);
    } catch (err) {
      if (!isMissing(err)) throw err;
      knownDirs.delete(dir);
      await ensureDirectory(dir);
      return ops.createExclusive(temp);
    }
  };
}

/**
 * Writes `bytes` durably at `target` through the temporary file `temp` in `dir`: the file's bytes
 * are fsynced before the rename (a crash never leaves a half image under the key), the directory
 * after it, before the put resolves (a crash never loses an acknowledged image). On any failure
 * the temporary file goes and the target is left as it was.
 */
async function writeDurably(ops: FileOps, openTemp: ReturnType<typeof createTempFiles>, paths: { dir: string; temp: string; target: string }, bytes: Uint8Array): Promise<void> {
  const { dir, temp, target } = paths;
  const fd = await openTemp(dir, temp);
  try {
    try {
      for (let written = 0; written < bytes.length; ) {
        const count = await ops.write(fd, bytes, written);
        // A regular file takes at least one byte or fails; never spin on a write that took none.
        if (count === 0) throw new Error(`writing ${temp} made no progress`);
        written += count;
      }
      await ops.fsync(fd);
    } finally {
      await ops.close(fd);
    }
    // Two concurrent writers of one key rename identical bytes over each other: harmless.
    await ops.rename(temp, target);
  } catch (err) {
    await ops.remove(temp);
    throw err;
  }
  await syncDirectory(ops, dir);
}

/**
 * Images as files under a one-level fan-out (`ab/abcd….png`, as git and the Docker registry lay out
 * content-addressed blobs): 256 directories, each made once, so a put never creates one (the
 * former two-level `ab/cd/` layout made a new directory for almost every image until 65,536
 * existed, a mkdir and, to be durable, a parent fsync each). Images stored under that layout are
 * still read. Writes go to a temporary file that is fsynced and renamed into place, then the
 * directory is fsynced: a reader or a crash never sees half an image, nor loses a stored one.
 */
export function createFilesystemStorage(options: FilesystemStorageOptions): ImageStorage {
  const root = resolve(options.dir);
  const ops = options.fileOps ?? nodeFileOps;
  const openTemp = createTempFiles(ops);
  // Temporary names: unique per process (random) and per put (a counter), no random bytes per put.
  const tempPrefix = randomBytes(6).toString('hex');
  let tempCount = 0;

  function pathOf(key: string): string {
    // Second guard after the domain's check: only a generated key may become a path.
    if (!isImageKey(key)) throw new Error('refusing a key that is not an image key');
    return join(root, key.slice(0, 2), key);
  }

  /** Where the former two-level layout kept the image (read only). */
  const legacyPathOf = (key: string): string => join(root, key.slice(0, 2), key.slice(2, 4), key);

  /** Opens the image for reading, under either layout; null when it is under neither. */
  async function openImage(key: string): Promise<FileHandle | null> {
    for (const path of [pathOf(key), legacyPathOf(key)]) {
      try {
        return await open(path, 'r');
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    }
    return null;
  }

  return {
    description: `filesystem ${root}`,

    async put(key, bytes) {
      const target = pathOf(key);
      if (await ops.exists(target)) return false;
      const dir = dirname(target);
      const temp = join(dir, `.${key}.${tempPrefix}-${(tempCount++).toString(36)}.tmp`);
      await writeDurably(ops, openTemp, { dir, temp, target }, bytes);
      return true;
    },

    async open(key, signal) {
      if (!isImageKey(key)) return null;
      const handle = await openImage(key);
      if (handle === null) return null;
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
