import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFileOps, type FileOps } from '../src/storage/file-ops.js';
import { createFilesystemStorage } from '../src/storage/filesystem.js';
import { largePng } from '../../test/support/images.js';
import { tempDir } from '../../test/support/servers.js';

const keyOf = (bytes: Buffer): string => `${createHash('sha256').update(bytes).digest('hex')}.png`;

/** The real file-system calls, logged by name and target ("file" or "dir" for descriptors), one of them made to fail or wait. */
function recordingOps(options: { fail?: 'write file' | 'fsync file' | 'rename'; gateDirectorySync?: Promise<void> } = {}) {
  const log: string[] = [];
  const kinds = new Map<number, 'file' | 'dir'>();
  const failIf = (entry: string) => {
    if (options.fail === entry) throw Object.assign(new Error(`injected ${entry} failure`), { code: 'EIO' });
  };
  const ops: FileOps = {
    exists: async (path) => (log.push('exists'), nodeFileOps.exists(path)),
    createExclusive: async (path) => {
      log.push('create temp');
      const fd = await nodeFileOps.createExclusive(path);
      kinds.set(fd, 'file');
      return fd;
    },
    openDirectory: async (path) => {
      log.push('open dir');
      const fd = await nodeFileOps.openDirectory(path);
      kinds.set(fd, 'dir');
      return fd;
    },
    write: async (fd, bytes, offset) => (log.push('write file'), failIf('write file'), nodeFileOps.write(fd, bytes, offset)),
    fsync: async (fd) => {
      log.push(`fsync ${kinds.get(fd)}`);
      // Only the sync that follows the rename waits (not those of directories made on the way).
      if (kinds.get(fd) === 'dir' && log.includes('rename')) await options.gateDirectorySync;
      failIf(`fsync ${kinds.get(fd)}`);
      return nodeFileOps.fsync(fd);
    },
    close: async (fd) => (log.push(`close ${kinds.get(fd)}`), nodeFileOps.close(fd)),
    rename: async (from, to) => (log.push('rename'), failIf('rename'), nodeFileOps.rename(from, to)),
    remove: async (path) => (log.push('remove temp'), nodeFileOps.remove(path)),
  };
  return { ops, log };
}

describe('filesystem store: durability', () => {
  const dir = tempDir('media-durable');
  afterAll(() => dir.remove());
  const image = largePng(300 * 1024).bytes;
  const key = keyOf(image);
  const fanOut = (root: string) => join(root, key.slice(0, 2));

  it('fsyncs the file before the rename and the directory after it, and answers only then', async () => {
    const root = join(dir.path, 'ordered');
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { ops, log } = recordingOps({ gateDirectorySync: gate });
    const storage = createFilesystemStorage({ dir: root, fileOps: ops });
    let settled = false;
    const put = storage.put(key, image, 'image/png').finally(() => (settled = true));
    const syncedAfterRename = () => log.includes('rename') && log.indexOf('fsync dir', log.indexOf('rename')) > 0;
    while (!syncedAfterRename()) await new Promise((resolve) => setTimeout(resolve, 5));
    // The image is in place, but the put must not be acknowledged before its directory entry is durable.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    open();
    expect(await put).toBe(true);
    // From the temporary file on (several writes, if any were short, count as one).
    const tail = log.slice(log.indexOf('create temp')).filter((entry, i, all) => entry !== 'write file' || all[i - 1] !== 'write file');
    expect(tail).toEqual(['create temp', 'write file', 'fsync file', 'close file', 'rename', 'open dir', 'fsync dir', 'close dir']);
    expect(log[0]).toBe('exists');
    expect(readFileSync(join(fanOut(root), key)).equals(image)).toBe(true);
    expect(readdirSync(fanOut(root))).toEqual([key]);
  });

  it.each(['write file', 'fsync file', 'rename'] as const)('leaves neither the image nor a temporary file when %s fails, and a retry stores it', async (fail) => {
    const root = join(dir.path, `failing-${fail}`);
    const failing = createFilesystemStorage({ dir: root, fileOps: recordingOps({ fail }).ops });
    await expect(failing.put(key, image, 'image/png')).rejects.toThrow(`injected ${fail} failure`);
    expect(existsSync(join(fanOut(root), key))).toBe(false);
    expect(readdirSync(fanOut(root))).toEqual([]);
    const storage = createFilesystemStorage({ dir: root });
    expect(await storage.put(key, image, 'image/png')).toBe(true);
    expect(readFileSync(join(fanOut(root), key)).equals(image)).toBe(true);
  });

  it('stores concurrent puts of one image once, whole, with no temporary file left', async () => {
    const root = join(dir.path, 'concurrent');
    const storage = createFilesystemStorage({ dir: root });
    const results = await Promise.all(Array.from({ length: 8 }, () => storage.put(key, image, 'image/png')));
    expect(results).toContain(true);
    expect(readFileSync(join(fanOut(root), key)).equals(image)).toBe(true);
    expect(readdirSync(fanOut(root))).toEqual([key]);
    expect(await storage.put(key, image, 'image/png')).toBe(false);
  });
});
