import { AppError } from '@dynamic-events/proto';
import { rethrowStorageFailure } from '../storage/failures.js';
import { CHUNK_BYTES, type ImageStorage } from '../storage/types.js';
import { isImageKey } from './image-key.js';

/** A stored image on its way out: its type and size first, then chunks of at most 64 KiB. */
export interface ImageStream {
  contentType: string;
  sizeBytes: number;
  chunks: AsyncIterable<Buffer>;
}

/** Splits whatever the store delivers into bounded messages and proves the whole image was read. */
async function* boundedChunks(source: AsyncIterable<Buffer>, key: string, size: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    for (let at = 0; at < chunk.length; at += CHUNK_BYTES) yield chunk.subarray(at, at + CHUNK_BYTES);
  }
  if (total !== size) throw new Error(`image ${key}: read ${total} bytes, expected ${size}`);
}

/**
 * GetImage: only keys this service generates reach storage (anything else is simply not found,
 * so no caller can name a path or another object); reading stops when `signal` aborts.
 */
export function createGetImage(deps: { storage: ImageStorage }): (key: string, signal: AbortSignal) => Promise<ImageStream> {
  return async (key, signal) => {
    // An arbitrary key is not echoed back: it is caller text of any length.
    if (!isImageKey(key)) throw new AppError('NOT_FOUND', 'image not found');
    const reader = await deps.storage.open(key, signal).catch(rethrowStorageFailure);
    if (!reader) throw new AppError('NOT_FOUND', `image ${key} not found`);
    return { contentType: reader.contentType, sizeBytes: reader.size, chunks: boundedChunks(reader.chunks, key, reader.size) };
  };
}
