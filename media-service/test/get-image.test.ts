import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { createGetImage } from '../src/domain/get-image.js';
import type { ImageStorage } from '../src/storage/types.js';

const KEY = `${'ab'.repeat(32)}.jpg`;

/** A store that hands out one fixed object, however the backend happened to chunk it. */
function fixedStorage(parts: Buffer[], size: number, opened: string[] = []): ImageStorage {
  return {
    description: 'fixed',
    put: () => Promise.resolve(true),
    async open(key) {
      opened.push(key);
      if (key !== KEY) return null;
      return {
        contentType: 'image/jpeg',
        size,
        chunks: (async function* () {
          yield* parts;
        })(),
      };
    },
    check: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('GetImage domain', () => {
  it('splits large pieces from the store into chunks of at most 64 KiB', async () => {
    const whole = Buffer.alloc(200 * 1024, 7);
    const getImage = createGetImage({ storage: fixedStorage([whole.subarray(0, 150_000), whole.subarray(150_000)], whole.length) });
    const image = await getImage(KEY, new AbortController().signal);
    expect(image).toMatchObject({ contentType: 'image/jpeg', sizeBytes: whole.length });
    const chunks = await collect(image.chunks);
    expect(chunks.every((c) => c.length > 0 && c.length <= 64 * 1024)).toBe(true);
    expect(Buffer.concat(chunks).equals(whole)).toBe(true);
  });

  it('fails the stream when the store delivers fewer bytes than it announced', async () => {
    const getImage = createGetImage({ storage: fixedStorage([Buffer.alloc(10)], 20) });
    const image = await getImage(KEY, new AbortController().signal);
    const err = await collect(image.chunks).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(AppError);
  });

  it('never passes a malformed key to storage', async () => {
    const opened: string[] = [];
    const getImage = createGetImage({ storage: fixedStorage([], 0, opened) });
    for (const key of ['../x.jpg', `${'ab'.repeat(32)}.jpeg`, `/${'ab'.repeat(32)}.jpg`, '']) {
      await expect(getImage(key, new AbortController().signal)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'image not found' });
    }
    expect(opened).toEqual([]);
    const missing = `${'cd'.repeat(32)}.png`;
    await expect(getImage(missing, new AbortController().signal)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `image ${missing} not found` });
    expect(opened).toEqual([missing]);
  });
});
