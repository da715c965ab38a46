import { createHash } from 'node:crypto';
import type { ImageInfo } from './image-sniff.js';

/** Keys the server generates: sha256 of the bytes in hex, then the format's extension. */
const KEY_PATTERN = /^[0-9a-f]{64}\.(jpg|png|gif|webp)$/;

const CONTENT_TYPES = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' } as const;

/** The content-addressed key for an image: identical bytes always get the same key. */
export function imageKeyOf(bytes: Uint8Array, ext: ImageInfo['ext']): string {
  return `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;
}

/**
 * True only for keys this service could have generated. Storage is never asked about anything
 * else, so a caller's key cannot name a path or an object outside the image namespace.
 */
export function isImageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The content type implied by a valid key's extension. */
export function contentTypeOfKey(key: string): ImageInfo['contentType'] {
  const ext = key.slice(key.lastIndexOf('.') + 1) as keyof typeof CONTENT_TYPES;
  const type = CONTENT_TYPES[ext];
  if (type === undefined) throw new Error(`not an image key: ${key}`);
  return type;
}
