/**
 * Identifies an image by its magic bytes (never by a name or a claimed type), reads its
 * dimensions from the header, and accepts it only when its structure is complete to the last byte
 * (image-structure.ts), so no pixel data is ever decoded and no file cut short is stored. Pure: no
 * I/O, no config. Every refusal is an INVALID_ARGUMENT AppError on field "data"; no other exception escapes.
 */
import { crc32 } from 'node:zlib';
import { imageRuleError, type AppError } from '@dynamic-events/proto';
import { gifExtent, isCompleteJpeg, isCompletePng, isCompleteWebp } from './image-structure.js';

/** The four accepted formats. */
type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp';

/** What the header says about an image. */
export interface ImageInfo {
  format: ImageFormat;
  ext: 'jpg' | 'png' | 'gif' | 'webp';
  contentType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  width: number;
  height: number;
  /**
   * Pixels a decoder may have to allocate: width × height, except for GIF, whose frames may
   * reach beyond the logical screen (browsers then grow the canvas), so the largest extent counts.
   */
  pixels: number;
}

const FORMATS = {
  jpeg: { ext: 'jpg', contentType: 'image/jpeg', name: 'JPEG' },
  png: { ext: 'png', contentType: 'image/png', name: 'PNG' },
  gif: { ext: 'gif', contentType: 'image/gif', name: 'GIF' },
  webp: { ext: 'webp', contentType: 'image/webp', name: 'WEBP' },
} as const;

/** PNG and WEBP both bound dimensions well below this; larger values only come from forged headers. */
const MAX_DIMENSION = 0x7fffffff;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function unsupported(): AppError {
  return imageRuleError.unsupported();
}

function corrupt(format: ImageFormat): AppError {
  return imageRuleError.corrupt(FORMATS[format].name);
}

/** `info` when the file's structure is complete, else the refusal saying so. */
function complete(info: ImageInfo, isComplete: (b: Uint8Array) => boolean, b: Uint8Array): ImageInfo {
  if (!isComplete(b)) throw imageRuleError.incomplete(FORMATS[info.format].name);
  return info;
}

const u16be = (b: Uint8Array, at: number): number => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number): number => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number): number => u16le(b, at) + (b[at + 2] ?? 0) * 0x10000;
const u32be = (b: Uint8Array, at: number): number => u16be(b, at) * 0x10000 + u16be(b, at + 2);
const u32le = (b: Uint8Array, at: number): number => u16le(b, at) + u16le(b, at + 2) * 0x10000;

function startsWith(b: Uint8Array, at: number, expected: readonly number[] | string): boolean {
  const codes = typeof expected === 'string' ? [...expected].map((c) => c.charCodeAt(0)) : expected;
  if (b.length < at + codes.length) return false;
  return codes.every((code, i) => b[at + i] === code);
}

function result(format: ImageFormat, width: number, height: number, pixels = width * height): ImageInfo {
  if (!(width > 0 && height > 0 && width <= MAX_DIMENSION && height <= MAX_DIMENSION)) throw corrupt(format);
  const { ext, contentType } = FORMATS[format];
  return { format, ext, contentType, width, height, pixels };
}

/** The format and dimensions of `bytes`; throws INVALID_ARGUMENT (rule "format" or "corrupt"). */
export function sniffImage(bytes: Uint8Array): ImageInfo {
  if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) return complete(sniffJpeg(bytes), isCompleteJpeg, bytes);
  if (startsWith(bytes, 0, PNG_SIGNATURE)) return complete(sniffPng(bytes), isCompletePng, bytes);
  if (startsWith(bytes, 0, 'GIF87a') || startsWith(bytes, 0, 'GIF89a')) return sniffGif(bytes);
  if (startsWith(bytes, 0, 'RIFF') && startsWith(bytes, 8, 'WEBP')) return complete(sniffWebp(bytes), isCompleteWebp, bytes);
  throw unsupported();
}

/** The first chunk must be a complete IHDR with a valid CRC, as decoders require. */
function sniffPng(b: Uint8Array): ImageInfo {
  if (b.length < 33 || u32be(b, 8) !== 13 || !startsWith(b, 12, 'IHDR')) throw corrupt('png');
  if (crc32(b.subarray(12, 29)) !== u32be(b, 29)) throw corrupt('png');
  return result('png', u32be(b, 16), u32be(b, 20));
}

/**
 * Walks the segments to the first frame header (SOFn). DHT (C4), JPG (C8) and DAC (CC) share the
 * C0-CF range but are not frame headers. Scan data or the end of the image before a frame: corrupt.
 */
function sniffJpeg(b: Uint8Array): ImageInfo {
  let pos = 2;
  for (;;) {
    if (b[pos] !== 0xff) throw corrupt('jpeg');
    while (b[pos] === 0xff) pos += 1; // fill bytes before a marker
    const marker = b[pos];
    pos += 1;
    if (marker === undefined || marker === 0x00 || marker === 0xd9 || marker === 0xda) throw corrupt('jpeg');
    // Markers without a length: SOI, TEM, RST0-7.
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (pos + 2 > b.length) throw corrupt('jpeg');
    const length = u16be(b, pos);
    if (length < 2) throw corrupt('jpeg');
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      // length(2) precision(1) height(2) width(2) components(1)
      if (length < 8 || pos + 8 > b.length) throw corrupt('jpeg');
      return result('jpeg', u16be(b, pos + 5), u16be(b, pos + 3));
    }
    pos += length;
  }
}

/**
 * Reads the logical screen, then walks the blocks (image-structure.ts) to the trailer: frames may
 * reach beyond the screen, and the largest extent is what a decoder may allocate.
 */
function sniffGif(b: Uint8Array): ImageInfo {
  if (b.length < 13) throw corrupt('gif');
  const width = u16le(b, 6);
  const height = u16le(b, 8);
  if (width === 0 || height === 0) throw corrupt('gif');
  const extent = gifExtent(b);
  if (extent === undefined) throw imageRuleError.incomplete(FORMATS.gif.name);
  return result('gif', width, height, Math.max(width, extent.width) * Math.max(height, extent.height));
}

/**
 * RIFF/WEBP with a VP8 (lossy), VP8L (lossless) or VP8X (extended) first chunk, whose header is
 * read only within the chunk's declared size (a pad byte or the next chunk is not part of it).
 */
function sniffWebp(b: Uint8Array): ImageInfo {
  const data = 20; // RIFF header (12) + chunk fourcc (4) + chunk size (4)
  const holds = (bytes: number): boolean => b.length >= data + bytes && u32le(b, 16) >= bytes;
  if (startsWith(b, 12, 'VP8X')) {
    if (!holds(10)) throw corrupt('webp');
    // flags(1) reserved(3) canvas width-1 (24 bits) canvas height-1 (24 bits)
    return result('webp', u24le(b, data + 4) + 1, u24le(b, data + 7) + 1);
  }
  if (startsWith(b, 12, 'VP8L')) {
    if (!holds(5) || b[data] !== 0x2f) throw corrupt('webp');
    // 14 bits width-1, 14 bits height-1, 1 bit alpha, 3 bits version (must be 0)
    const bits = u32le(b, data + 1);
    if (bits >>> 29 !== 0) throw corrupt('webp');
    return result('webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (startsWith(b, 12, 'VP8 ')) {
    // frame tag (3 bytes, bit 0 clear on a key frame), start code 9d 01 2a, then 14-bit sizes
    if (!holds(10) || ((b[data] ?? 1) & 1) !== 0 || !startsWith(b, data + 3, [0x9d, 0x01, 0x2a])) throw corrupt('webp');
    return result('webp', u16le(b, data + 6) & 0x3fff, u16le(b, data + 8) & 0x3fff);
  }
  throw unsupported();
}
