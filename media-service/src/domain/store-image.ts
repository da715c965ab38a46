import { AppError, imageRuleError } from '@dynamic-events/proto';
import type { MediaMetrics } from '../metrics.js';
import { rethrowStorageFailure } from '../storage/failures.js';
import type { ImageStorage } from '../storage/types.js';
import { imageKeyOf } from './image-key.js';
import { sniffImage } from './image-sniff.js';

/** Storage, metrics and the limits from the config. */
export interface StoreImageDeps {
  storage: ImageStorage;
  metrics: MediaMetrics;
  maxImageBytes: number;
  maxImagePixels: number;
}

/** A stored image as callers see it. */
export interface StoredImage {
  /** The content-addressed key; the gateway builds the public URL from it. */
  key: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  /** False when identical bytes were stored before. */
  created: boolean;
}

/** Refusals are about the request's `data` field; the gateway names its own field in front. */
function checkImage(bytes: Buffer, deps: StoreImageDeps): ReturnType<typeof sniffImage> {
  if (bytes.length === 0) throw imageRuleError.empty();
  if (bytes.length > deps.maxImageBytes) throw imageRuleError.tooLarge(deps.maxImageBytes);
  const info = sniffImage(bytes);
  if (info.pixels > deps.maxImagePixels) throw imageRuleError.tooManyPixels(info.width, info.height, deps.maxImagePixels);
  return info;
}

/**
 * StoreImage: checks size, real format, dimensions and pixel count, then stores the exact bytes
 * under their content hash, so identical images are stored once and their URL never changes.
 */
export function createStoreImage(deps: StoreImageDeps): (bytes: Buffer) => Promise<StoredImage> {
  const { storage, metrics } = deps;

  return async (bytes) => {
    let info;
    try {
      info = checkImage(bytes, deps);
    } catch (err) {
      if (err instanceof AppError) metrics.rejections.inc({ rule: err.details.rule ?? 'unknown' });
      throw err;
    }
    const key = imageKeyOf(bytes, info.ext);
    const created = await storage.put(key, bytes, info.contentType).catch(rethrowStorageFailure);
    metrics.imagesStored.inc({ result: created ? 'created' : 'deduplicated', format: info.format });
    if (created) metrics.bytesStored.inc(bytes.length);
    return {
      key,
      // Keys are hex hashes plus an extension; encoded anyway, like every path segment we build.
      contentType: info.contentType,
      sizeBytes: bytes.length,
      width: info.width,
      height: info.height,
      created,
    };
  };
}
