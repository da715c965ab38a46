import { createHash } from 'node:crypto';
import { AppError, MEDIA_SERVICE_NAME } from '@dynamic-events/proto';
import { createHealthChecker } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../src/storage/filesystem.js';
import { createS3Storage } from '../src/storage/s3.js';
import type { ImageStorage } from '../src/storage/types.js';
import { hostile, largePng, samples } from '../../test/support/images.js';
import { startS3Server, type TestS3 } from '../../test/support/s3.js';
import { freePort, tempDir } from '../../test/support/servers.js';
import { rejection, startMedia, type RunningMedia } from './helpers.js';

const MIB = 1024 * 1024;
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

interface Backend {
  name: string;
  setUp(): Promise<() => ImageStorage>;
  tearDown(): Promise<void>;
}

let s3: TestS3 | undefined;
const dir = tempDir('media-grpc');
const backends: Backend[] = [
  {
    name: 'filesystem',
    setUp: async () => () => createFilesystemStorage({ dir: `${dir.path}/media` }),
    tearDown: async () => dir.remove(),
  },
  {
    name: 's3',
    async setUp() {
      s3 = await startS3Server();
      const { port } = new URL(s3.endpoint);
      const server = s3;
      return () => createS3Storage({ endPoint: '127.0.0.1', port: Number(port), useSSL: false, accessKey: server.accessKey, secretKey: server.secretKey, bucket: 'dynamic-events', region: 'us-east-1' });
    },
    tearDown: async () => s3?.stop(),
  },
];

describe.each(backends)('MediaService over gRPC on $name storage', (backend) => {
  let media: RunningMedia;

  beforeAll(async () => {
    const makeStorage = await backend.setUp();
    media = await startMedia(makeStorage());
  });
  afterAll(async () => {
    await media.stop();
    await backend.tearDown();
  });

  it('reports SERVING once storage is usable', async () => {
    const health = createHealthChecker(media.address);
    expect(await health.isServing(MEDIA_SERVICE_NAME, 2000)).toBe(true);
    expect(await health.isServing('', 2000)).toBe(true);
    health.close();
  });

  it.each(Object.entries(samples))('stores %s and streams back the exact bytes', async (_format, sample) => {
    const stored = await media.store(sample.bytes);
    const key = `${sha256(sample.bytes)}.${sample.ext}`;
    expect(stored).toEqual({
      key,
      contentType: sample.contentType,
      sizeBytes: String(sample.bytes.length),
      width: sample.width,
      height: sample.height,
      created: true,
    });
    const again = await media.store(Buffer.from(sample.bytes));
    expect(again).toEqual({ ...stored, created: false });

    const messages = await media.get(key);
    expect(messages[0]).toMatchObject({ contentType: sample.contentType, sizeBytes: String(sample.bytes.length) });
    expect(Buffer.concat(messages.map((m) => m.chunk)).equals(sample.bytes)).toBe(true);
  });

  it('takes an image of about 9 MiB and streams it back in chunks of at most 64 KiB', async () => {
    const big = largePng(9 * MIB);
    expect(big.bytes.length).toBeGreaterThan(4 * MIB); // above grpc-js's default message limit
    const stored = await media.store(big.bytes);
    expect(stored).toMatchObject({ width: big.width, height: big.height, sizeBytes: String(big.bytes.length), created: true });
    const messages = await media.get(stored.key);
    expect(messages.length).toBeGreaterThan(100);
    expect(Math.max(...messages.map((m) => m.chunk.length))).toBeLessThanOrEqual(64 * 1024);
    expect(messages.slice(1).every((m) => m.contentType === '' && m.sizeBytes === '0')).toBe(true);
    expect(Buffer.concat(messages.map((m) => m.chunk)).equals(big.bytes)).toBe(true);
  });

  it('refuses an image over MAX_IMAGE_BYTES with an HTTP 413 detail', async () => {
    const tooBig = Buffer.concat([samples.png.bytes, Buffer.alloc(media.config.maxImageBytes + 1 - samples.png.bytes.length)]);
    const err = await rejection(media.store(tooBig));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'image is larger than the limit of 10485760 bytes', details: { field: 'data', rule: 'size', httpStatus: 413 } });
  });

  it.each([
    ['svg', hostile.svg, 'format', 'not a supported image: only JPEG, PNG, GIF and WEBP are accepted'],
    ['html', hostile.html, 'format', 'not a supported image: only JPEG, PNG, GIF and WEBP are accepted'],
    ['bmp', hostile.bmp, 'format', 'not a supported image: only JPEG, PNG, GIF and WEBP are accepted'],
    ['truncatedPng', hostile.truncatedPng, 'corrupt', 'corrupt PNG image: its width and height cannot be read'],
    ['pngBomb', hostile.pngBomb, 'pixels', 'image has too many pixels: 100000x100000 is above the limit of 100000000'],
    ['empty data', Buffer.alloc(0), 'required', 'image is empty'],
  ])('refuses %s as INVALID_ARGUMENT', async (_name, data, rule, message) => {
    const err = await rejection(media.store(data));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message, details: { field: 'data', rule } });
  });

  it('answers NOT_FOUND for unknown and malformed keys without touching storage', async () => {
    const missing = `${'0'.repeat(64)}.png`;
    expect(await rejection(media.get(missing))).toMatchObject({ code: 'NOT_FOUND', message: `image ${missing} not found` });
    for (const key of ['../../../../etc/passwd', `..%2F${'a'.repeat(60)}.png`, '', `${'a'.repeat(64)}.png/..`, `${'a'.repeat(64)}.PNG`]) {
      expect(await rejection(media.get(key))).toMatchObject({ code: 'NOT_FOUND', message: 'image not found' });
    }
  });
});

describe('MediaService when S3 is down', () => {
  let media: RunningMedia;
  beforeAll(async () => {
    const port = await freePort();
    media = await startMedia(
      createS3Storage({ endPoint: '127.0.0.1', port, useSSL: false, accessKey: 'a', secretKey: 'b', bucket: 'dynamic-events', region: 'us-east-1', checkTimeoutMs: 2000 }),
    );
  });
  afterAll(() => media.stop());

  it('reports NOT_SERVING', async () => {
    const health = createHealthChecker(media.address);
    expect(await health.isServing(MEDIA_SERVICE_NAME, 2000)).toBe(false);
    health.close();
  });

  it('answers UNAVAILABLE (an outage: retry later) with no internal text', async () => {
    for (const call of [media.store(samples.jpeg.bytes), media.get(`${sha256(samples.jpeg.bytes)}.jpg`)]) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.message).toBe('the image store is unavailable; retry later');
      expect(err.details).toEqual({ rule: 'unavailable', retryAfterSeconds: 1 });
    }
  });
});
