import { createHash } from 'node:crypto';
import { AppError } from '@dynamic-events/proto';
import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { createStoreImage, type StoreImageDeps } from '../src/domain/store-image.js';
import { createMediaMetrics, type MediaMetrics } from '../src/metrics.js';
import type { ImageStorage } from '../src/storage/types.js';
import { hostile, samples } from '../../test/support/images.js';

/** In-memory storage: this file tests the rules and the key, the storage tests use real backends. */
function memoryStorage(): ImageStorage & { objects: Map<string, { bytes: Buffer; contentType: string }> } {
  const objects = new Map<string, { bytes: Buffer; contentType: string }>();
  return {
    objects,
    description: 'memory',
    async put(key, bytes, contentType) {
      if (objects.has(key)) return false;
      objects.set(key, { bytes: Buffer.from(bytes), contentType });
      return true;
    },
    async open() {
      return null;
    },
    async check() {},
    async close() {},
  };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

// Fresh storage and metrics for every test of both describes.
let storage: ReturnType<typeof memoryStorage>;
let metrics: MediaMetrics;
let registry: Registry;
let deps: StoreImageDeps;

beforeEach(() => {
  storage = memoryStorage();
  registry = new Registry();
  metrics = createMediaMetrics(registry);
  deps = { storage, metrics, maxImageBytes: 1024, maxImagePixels: 1000 };
});

const counter = async (name: string, labels: Record<string, string>): Promise<number> => {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
};

describe('StoreImage rules', () => {
  it('stores the exact bytes under sha256.ext and returns the key (the gateway builds the public URL)', async () => {
    const store = createStoreImage(deps);
    const hash = createHash('sha256').update(samples.png.bytes).digest('hex');
    const result = await store(samples.png.bytes);
    expect(result).toEqual({
      key: `${hash}.png`,
      contentType: 'image/png',
      sizeBytes: samples.png.bytes.length,
      width: 4,
      height: 3,
      created: true,
    });
    expect(storage.objects.get(`${hash}.png`)).toEqual({ bytes: samples.png.bytes, contentType: 'image/png' });
    expect(await counter('media_images_stored_total', { result: 'created', format: 'png' })).toBe(1);
    expect(await counter('media_bytes_stored_total', {})).toBe(samples.png.bytes.length);
  });

  it('stores identical bytes once', async () => {
    const store = createStoreImage(deps);
    const first = await store(samples.gif.bytes);
    const second = await store(Buffer.from(samples.gif.bytes));
    expect(second).toEqual({ ...first, created: false });
    expect(storage.objects.size).toBe(1);
    expect(await counter('media_images_stored_total', { result: 'deduplicated', format: 'gif' })).toBe(1);
    expect(await counter('media_bytes_stored_total', {})).toBe(samples.gif.bytes.length);
  });

  it('lets a storage failure through as a plain error (the gRPC edge turns it into INTERNAL)', async () => {
    const failing = { ...storage, put: () => Promise.reject(new Error('disk on fire')) };
    const err = await createStoreImage({ ...deps, storage: failing })(samples.webp.bytes).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(AppError);
  });
});

describe('StoreImage rules: refusals', () => {
  it('refuses empty data', async () => {
    const err = await refusal(createStoreImage(deps)(Buffer.alloc(0)));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'image is empty', details: { field: 'data', rule: 'required' } });
  });

  it('accepts exactly MAX_IMAGE_BYTES and refuses one byte more with HTTP 413', async () => {
    const exact = createStoreImage({ ...deps, maxImageBytes: samples.jpeg.bytes.length });
    await expect(exact(samples.jpeg.bytes)).resolves.toMatchObject({ created: true });
    const tight = createStoreImage({ ...deps, maxImageBytes: samples.jpeg.bytes.length - 1 });
    const err = await refusal(tight(samples.jpeg.bytes));
    expect(err).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: `image is larger than the limit of ${samples.jpeg.bytes.length - 1} bytes`,
      details: { field: 'data', rule: 'size', httpStatus: 413 },
    });
    expect(await counter('media_image_rejections_total', { rule: 'size' })).toBe(1);
  });

  it('accepts exactly MAX_IMAGE_PIXELS and refuses pixel bombs', async () => {
    await expect(createStoreImage({ ...deps, maxImagePixels: 12 })(samples.png.bytes)).resolves.toMatchObject({ width: 4, height: 3 });
    const err = await refusal(createStoreImage({ ...deps, maxImagePixels: 11 })(samples.png.bytes));
    expect(err.details).toEqual({ field: 'data', rule: 'pixels' });
    const bomb = await refusal(createStoreImage({ ...deps, maxImagePixels: 100_000_000 })(hostile.pngBomb));
    expect(bomb).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'image has too many pixels: 100000x100000 is above the limit of 100000000',
      details: { rule: 'pixels' },
    });
    expect(storage.objects.size).toBe(1);
  });

  it.each([
    ['svg', hostile.svg, 'format'],
    ['html', hostile.html, 'format'],
    ['bmp', hostile.bmp, 'format'],
    ['truncatedPng', hostile.truncatedPng, 'corrupt'],
  ])('refuses %s and stores nothing', async (_name, bytes, rule) => {
    const err = await refusal(createStoreImage(deps)(bytes));
    expect(err.details).toMatchObject({ field: 'data', rule });
    expect(storage.objects.size).toBe(0);
    expect(await counter('media_image_rejections_total', { rule })).toBe(1);
  });
});
