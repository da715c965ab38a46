/**
 * StoreImageStream (the lane the gateway sends images on) to a caller that writes images and never
 * reads the answers: the media service stops taking images once its answers wait for the caller
 * (proto's grpc-lanes-server.ts), so what it handles and what it holds stay bounded however many
 * the caller has to send. The real handlers and gRPC server over filesystem storage in a temporary
 * directory; the caller is a raw HTTP/2 stream that never opens its receive window again.
 */
import { media } from '@dynamic-events/proto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../src/storage/filesystem.js';
import { openNonReader, stoppedMoving } from '../../test/support/grpc-non-reader.js';
import { samples } from '../../test/support/images.js';
import { tempDir } from '../../test/support/servers.js';
import { startMedia, type RunningMedia } from './helpers.js';

/** Images the caller has to send: far more than the lane may take without its answers read. */
const IMAGES = 50_000;

/** V8's collector, so the heap is read without the garbage of the moment. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const dir = tempDir('media-unread');
let running: RunningMedia;
let puts = 0;

beforeAll(async () => {
  const storage = createFilesystemStorage({ dir: `${dir.path}/media` });
  running = await startMedia({ ...storage, put: (...args) => (puts++, storage.put(...args)) });
});
afterAll(async () => {
  await running.stop();
  dir.remove();
});

describe('StoreImageStream to a caller that never reads', () => {
  it('stops taking images, and its heap stops growing, while the answers wait', async () => {
    const gc = collector();
    gc();
    const before = process.memoryUsage().heapUsed;
    const caller = openNonReader(running.address, media.MediaServiceService.storeImageStream.path);
    try {
      const image = (n: number) => media.MediaServiceService.storeImageStream.requestSerialize({ image: { data: samples.png.bytes }, requestId: `unread-${n}` });
      void caller.feed(IMAGES, image);
      await stoppedMoving(() => caller.written + puts);
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      // About 700 answers of some 90 bytes fill the caller's 64 KiB window: the images handled stop there.
      expect(puts).toBeLessThanOrEqual(2000);
      // Then the server's 1 MiB receive window of unread images (about 9,000 of these) is all that gets in.
      expect(caller.written).toBeLessThan(IMAGES);
      // About 1 MiB here; taking all 50,000 holds 13 MiB (answers only) to 250 MiB (images in flight too).
      expect(grown).toBeLessThan(4 * 1024 * 1024);
    } finally {
      caller.close();
    }
  });
});
