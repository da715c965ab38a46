import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../src/storage/filesystem.js';
import { createS3Storage } from '../src/storage/s3.js';
import type { ImageStorage } from '../src/storage/types.js';
import { startS3Server, type TestS3 } from '../../test/support/s3.js';
import { largePng, samples } from '../../test/support/images.js';
import { tempDir } from '../../test/support/servers.js';

const keyOf = (bytes: Buffer, ext: string): string => `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;

async function readAll(storage: ImageStorage, key: string): Promise<{ contentType: string; size: number; bytes: Buffer; chunks: number[] } | null> {
  const reader = await storage.open(key, new AbortController().signal);
  if (!reader) return null;
  const parts: Buffer[] = [];
  for await (const chunk of reader.chunks) parts.push(chunk);
  return { contentType: reader.contentType, size: reader.size, bytes: Buffer.concat(parts), chunks: parts.map((p) => p.length) };
}

/** The same contract, proved on each real backend. */
function contract(name: string, make: () => ImageStorage) {
  describe(`${name}: storage contract`, () => {
    let storage: ImageStorage;
    beforeAll(async () => {
      storage = make();
      await storage.check();
    });
    afterAll(() => storage.close());

    it('puts once, then reports the key as already stored', async () => {
      const key = keyOf(samples.jpeg.bytes, 'jpg');
      expect(await storage.put(key, samples.jpeg.bytes, 'image/jpeg')).toBe(true);
      expect(await storage.put(key, samples.jpeg.bytes, 'image/jpeg')).toBe(false);
    });

    it.each(Object.entries(samples))('round-trips %s byte for byte with its content type', async (_format, sample) => {
      const key = keyOf(sample.bytes, sample.ext);
      await storage.put(key, sample.bytes, sample.contentType);
      const read = await readAll(storage, key);
      expect(read).toMatchObject({ contentType: sample.contentType, size: sample.bytes.length });
      expect(read?.bytes.equals(sample.bytes)).toBe(true);
    });

    it('streams a large image exactly', async () => {
      const big = largePng(3 * 1024 * 1024).bytes;
      const key = keyOf(big, 'png');
      expect(await storage.put(key, big, 'image/png')).toBe(true);
      const read = await readAll(storage, key);
      expect(read?.size).toBe(big.length);
      expect(read?.bytes.equals(big)).toBe(true);
    });

    it('answers null for a key never stored and for keys that are not image keys', async () => {
      expect(await storage.open(`${'0'.repeat(64)}.png`, new AbortController().signal)).toBeNull();
      for (const key of ['../../../etc/passwd', `../${'a'.repeat(64)}.png`, '/etc/hostname', `${'A'.repeat(64)}.png`, `${'a'.repeat(64)}.svg`]) {
        expect(await storage.open(key, new AbortController().signal)).toBeNull();
      }
      await expect(storage.put('../escape.png', samples.png.bytes, 'image/png')).rejects.toThrow();
    });

    it('stops reading when the signal aborts', async () => {
      const big = largePng(2 * 1024 * 1024).bytes;
      const key = keyOf(big, 'png');
      await storage.put(key, big, 'image/png');
      const controller = new AbortController();
      const reader = await storage.open(key, controller.signal);
      let read = 0;
      const consume = (async () => {
        for await (const chunk of reader?.chunks ?? []) {
          read += chunk.length;
          controller.abort();
        }
      })();
      await expect(consume).rejects.toThrow(/abort/i);
      expect(read).toBeLessThan(big.length);
    });
  });
}

describe('S3 storage against a real S3 server (s3rver)', () => {
  let s3: TestS3;
  const bucket = 'media-test';
  const options = () => ({ endPoint: '127.0.0.1', port: Number(new URL(s3.endpoint).port), useSSL: false, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket, region: 'us-east-1' });
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3.stop());

  it('creates the bucket when missing, and a second check finds it', async () => {
    const storage = createS3Storage(options());
    expect((await fetch(`${s3.endpoint}/${bucket}`)).status).toBe(404);
    await storage.check();
    expect((await fetch(`${s3.endpoint}/${bucket}`)).status).toBe(200);
    await storage.check();
    await storage.close();
  });

  contract('s3', () => createS3Storage(options()));

  it('stores objects with their Content-Type, readable by any S3 client', async () => {
    const storage = createS3Storage(options());
    const key = keyOf(samples.webp.bytes, 'webp');
    await storage.put(key, samples.webp.bytes, 'image/webp');
    const response = await fetch(`${s3.endpoint}/${bucket}/${key}`);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await response.arrayBuffer()).equals(samples.webp.bytes)).toBe(true);
    await storage.close();
  });

  it('fails its check when the server is down', async () => {
    const storage = createS3Storage({ ...options(), port: 1, checkTimeoutMs: 2000 });
    await expect(storage.check()).rejects.toThrow();
    await storage.close();
  });
});

describe('filesystem storage on a real directory', () => {
  const dir = tempDir('media-fs');
  const root = join(dir.path, 'media');
  afterAll(() => dir.remove());

  contract('filesystem', () => createFilesystemStorage({ dir: root }));

  it('fans files out by key prefix and leaves no temporary files', async () => {
    // A directory of its own: the contract tests above store random images, and one of their keys
    // may share this key's two-character prefix (1 in 256 per random key; it happened in CI).
    const own = join(dir.path, 'fan-out');
    const storage = createFilesystemStorage({ dir: own });
    const key = keyOf(samples.gif.bytes, 'gif');
    await storage.put(key, samples.gif.bytes, 'image/gif');
    const path = join(own, key.slice(0, 2), key);
    expect(readFileSync(path).equals(samples.gif.bytes)).toBe(true);
    expect(readdirSync(own)).toEqual([key.slice(0, 2)]);
    expect(readdirSync(join(own, key.slice(0, 2)))).toEqual([key]);
  });

  it('still serves images stored under the former two-level layout (ab/cd/key)', async () => {
    const storage = createFilesystemStorage({ dir: root });
    const key = keyOf(samples.jpeg.bytes, 'jpg');
    mkdirSync(join(root, key.slice(0, 2), key.slice(2, 4)), { recursive: true });
    writeFileSync(join(root, key.slice(0, 2), key.slice(2, 4), key), samples.jpeg.bytes);
    const image = await storage.open(key, new AbortController().signal);
    expect(image?.size).toBe(samples.jpeg.bytes.length);
    const chunks: Buffer[] = [];
    for await (const chunk of image!.chunks) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(samples.jpeg.bytes)).toBe(true);
  });

  it('makes a fan-out directory again when it was removed behind its back', async () => {
    const storage = createFilesystemStorage({ dir: root });
    const first = keyOf(samples.png.bytes, 'png');
    await storage.put(first, samples.png.bytes, 'image/png');
    rmSync(join(root, first.slice(0, 2)), { recursive: true });
    expect(await storage.put(first, samples.png.bytes, 'image/png')).toBe(true);
    expect(readFileSync(join(root, first.slice(0, 2), first)).equals(samples.png.bytes)).toBe(true);
  });

  it('never reads outside its directory, whatever the key', async () => {
    writeFileSync(join(dir.path, 'secret.png'), 'secret');
    const storage = createFilesystemStorage({ dir: root });
    expect(await storage.open('../secret.png', new AbortController().signal)).toBeNull();
    expect(existsSync(join(dir.path, 'secret.png'))).toBe(true);
  });

  it('fails its check when the directory cannot be created', async () => {
    writeFileSync(join(dir.path, 'a-file'), '');
    await expect(createFilesystemStorage({ dir: join(dir.path, 'a-file', 'media') }).check()).rejects.toThrow();
  });
});
