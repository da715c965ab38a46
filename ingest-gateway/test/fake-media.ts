/** Test support: an in-memory media service that records every call (a plain object implementing MediaClient). */
import { AppError, imageRuleError } from '@dynamic-events/proto';
import type { ImageStream, MediaClient } from '../src/clients/media.js';
import type { StoredImage } from '../src/model.js';

export interface FakeMedia extends MediaClient {
  stored: Buffer[];
  calls: string[];
  requestIds: string[];
  serving: boolean;
  images: Map<string, { contentType: string; data: Buffer }>;
  /** When set, StoreImage rejects with it. */
  failWith: unknown;
  /** Chunk size of GetImage streams, and a pause before each chunk (a slow media service). */
  chunkSize: number;
  chunkDelayMs: number;
  /** GetImage streams stopped before their end (the gRPC call would be cancelled). */
  cancelled: number;
}

/** An in-memory media service: a PNG signature is an image, anything else is refused as media refuses it (imageRuleError). */
export function fakeMedia(): FakeMedia {
  const fake: FakeMedia = {
    stored: [],
    calls: [],
    requestIds: [],
    serving: true,
    images: new Map(),
    failWith: undefined,
    chunkSize: 4,
    chunkDelayMs: 0,
    cancelled: 0,
    async storeImage(data, call): Promise<StoredImage> {
      fake.calls.push('storeImage');
      fake.requestIds.push(call.requestId);
      if (fake.failWith !== undefined) throw fake.failWith;
      if (!data.subarray(0, 8).equals(PNG_SIGNATURE)) throw imageRuleError.unsupported();
      fake.stored.push(data);
      const key = `${'ab'.repeat(32)}.png`;
      fake.images.set(key, { contentType: 'image/png', data });
      return { key, contentType: 'image/png', sizeBytes: data.length };
    },
    async openImage(key): Promise<ImageStream> {
      fake.calls.push('openImage');
      const image = fake.images.get(key);
      if (!image) throw new AppError('NOT_FOUND', `image ${key} not found`);
      const { chunkSize, chunkDelayMs } = fake;
      async function* chunks(): AsyncGenerator<Buffer> {
        let completed = false;
        try {
          for (let i = 0; i < image!.data.length; i += chunkSize) {
            if (chunkDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
            yield image!.data.subarray(i, i + chunkSize);
          }
          completed = true;
        } finally {
          // Like the real client: stopping early cancels the gRPC call.
          if (!completed) fake.cancelled++;
        }
      }
      return {
        contentType: image.contentType,
        sizeBytes: image.data.length,
        chunks: chunks(),
        async cancel() {
          fake.cancelled++;
        },
      };
    },
    async isServing() {
      return fake.serving;
    },
    close() {},
  };
  return fake;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Not a valid PNG past the signature, but enough for the fake media service. */
export const TINY_PNG = Buffer.concat([PNG_SIGNATURE, Buffer.from('fake-png-body')]);
