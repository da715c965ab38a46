import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callStream, createHealthChecker } from '@dynamic-events/proto/runtime';
import { MEDIA_SERVICE_NAME } from '@dynamic-events/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../src/storage/filesystem.js';
import type { ImageStorage } from '../src/storage/types.js';
import { largePng, samples } from '../../test/support/images.js';
import { tempDir } from '../../test/support/servers.js';
import { rejection, startMedia } from './helpers.js';

const dir = tempDir('media-lifecycle');
afterAll(() => dir.remove());

/** Real filesystem storage whose writes wait at a gate, so a call is provably in flight. */
function gatedStorage(root: string): { storage: ImageStorage; entered: Promise<void>; release: () => void } {
  const real = createFilesystemStorage({ dir: root });
  let release = (): void => {};
  let enter = (): void => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const storage: ImageStorage = {
    ...real,
    async put(key, bytes, contentType) {
      enter();
      await gate;
      return real.put(key, bytes, contentType);
    },
  };
  return { storage, entered, release };
}

describe('graceful shutdown', () => {
  it('lets an in-flight StoreImage finish, and goes NOT_SERVING at once', async () => {
    const gated = gatedStorage(join(dir.path, 'store'));
    const media = await startMedia(gated.storage);
    const health = createHealthChecker(media.address);
    expect(await health.isServing(MEDIA_SERVICE_NAME, 1000)).toBe(true);

    const inFlight = media.store(samples.png.bytes);
    await gated.entered;
    const stopping = media.server.shutdown(5000);
    expect(await health.isServing(MEDIA_SERVICE_NAME, 500)).toBe(false);
    gated.release();
    await expect(inFlight).resolves.toMatchObject({ created: true, width: 4, height: 3 });
    await stopping;
    // Stopped for good: new calls are refused, as an outage (the caller may retry elsewhere).
    expect((await rejection(media.store(samples.png.bytes))).code).toBe('UNAVAILABLE');
    health.close();
    media.client.close();
  });

  it('lets an in-flight GetImage stream to the end', async () => {
    const media = await startMedia(createFilesystemStorage({ dir: join(dir.path, 'get') }));
    const big = largePng(6 * 1024 * 1024).bytes;
    const { key } = await media.store(big);

    const stream = callStream(media.client.getImage.bind(media.client), { key }, { deadlineMs: 20_000 });
    const first = await stream.next();
    expect(first.done).toBe(false);
    const chunks = [first.value?.chunk ?? Buffer.alloc(0)];
    const stopping = media.server.shutdown(10_000);
    for await (const message of stream) chunks.push(message.chunk);
    await stopping;
    expect(Buffer.concat(chunks).equals(big)).toBe(true);
    media.client.close();
  });

  it('cancels calls still running when the timeout expires', async () => {
    const gated = gatedStorage(join(dir.path, 'stuck'));
    const media = await startMedia(gated.storage);
    const inFlight = rejection(media.store(samples.gif.bytes));
    await gated.entered;
    // The storage stays stuck throughout: shutdown ends only by cancelling the call at its timeout
    // (the guard is far beyond the 300 ms timeout).
    const stopped = await Promise.race([media.server.shutdown(300).then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 15_000))]);
    expect(stopped).toBe('stopped');
    expect((await inFlight).code).toBe('INTERNAL');
    gated.release();
    media.client.close();
  });
});

describe('storage health', () => {
  it('flips NOT_SERVING while storage is unusable and back when it recovers', async () => {
    const root = join(dir.path, 'flip', 'media');
    const media = await startMedia(createFilesystemStorage({ dir: root }), { storageCheckIntervalMs: 50 });
    const health = createHealthChecker(media.address);
    const servingSoon = async (expected: boolean): Promise<void> => {
      // Asked every 20 ms until it says so, for up to 20 s (a busy machine delays the storage checks).
      for (const deadline = Date.now() + 20_000; Date.now() < deadline && (await health.isServing(MEDIA_SERVICE_NAME, 500)) !== expected; ) await new Promise((r) => setTimeout(r, 20));
      expect(await health.isServing(MEDIA_SERVICE_NAME, 500)).toBe(expected);
    };
    await servingSoon(true);

    // A file where the directory should be: nothing can be stored there.
    rmSync(root, { recursive: true });
    writeFileSync(root, '');
    await servingSoon(false);

    rmSync(root);
    mkdirSync(root);
    await servingSoon(true);
    health.close();
    await media.stop();
  });
});
