/**
 * Whether an image's structure is complete, read without decoding a pixel: the blocks of each
 * format are walked from start to end and must end exactly where the file does. A file cut short
 * (an upload broken off, a header alone) is therefore never complete: each walk of a prefix runs
 * like the walk of the whole file until it meets the cut, and only the whole ends at its last block.
 * Each walk is one pass over the bytes; PNG's CRCs are native (zlib.crc32). Pure: no I/O.
 */
import { crc32 } from 'node:zlib';

const u16be = (b: Uint8Array, at: number): number => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number): number => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32be = (b: Uint8Array, at: number): number => u16be(b, at) * 0x10000 + u16be(b, at + 2);
const u32le = (b: Uint8Array, at: number): number => u16le(b, at) + u16le(b, at + 2) * 0x10000;
const fourcc = (b: Uint8Array, at: number): string => String.fromCharCode(b[at] ?? 0, b[at + 1] ?? 0, b[at + 2] ?? 0, b[at + 3] ?? 0);

/**
 * After the 8-byte signature: chunks of length, type, data and CRC (of type and data), each whole
 * with a correct CRC, at least one IDAT, and IEND (empty) as the last bytes of the file.
 */
export function isCompletePng(b: Uint8Array): boolean {
  let sawData = false;
  // Each chunk takes at least 12 bytes and must end within the file: the walk ends.
  for (let pos = 8; ; ) {
    const length = u32be(b, pos);
    const end = pos + 12 + length;
    if (end > b.length || crc32(b.subarray(pos + 4, end - 4)) !== u32be(b, end - 4)) return false;
    const type = fourcc(b, pos + 4);
    if (type === 'IEND') return sawData && length === 0 && end === b.length;
    if (type === 'IDAT') sawData = true;
    pos = end;
  }
}

/** RST0-7: restart markers, inside entropy-coded data. */
const isRestart = (marker: number): boolean => marker >= 0xd0 && marker <= 0xd7;

/**
 * Where the entropy-coded data that starts at `from` ends: at the first FF that is neither a
 * stuffed FF 00 nor a restart marker (fill bytes before the marker are the segment walk's to skip).
 * The end of the file when the data runs to it without one.
 */
function endOfScan(b: Uint8Array, from: number): number {
  for (let at = b.indexOf(0xff, from); at !== -1; at = b.indexOf(0xff, at + 2)) {
    const next = b[at + 1] ?? 0;
    if (next !== 0x00 && !isRestart(next)) return at;
  }
  return b.length;
}

/**
 * After SOI: marker segments, each scan (SOS) followed by its entropy-coded data, at least one
 * scan, and EOI as the last bytes of the file. The frame header's place is image-sniff's concern.
 */
export function isCompleteJpeg(b: Uint8Array): boolean {
  let pos = 2;
  let sawScan = false;
  // A segment length below 2 or past the end lands on a byte that is not FF: the walk ends there.
  while (b[pos] === 0xff) {
    while (b[pos] === 0xff) pos += 1; // fill bytes before a marker
    const marker = b[pos] ?? 0;
    pos += 1;
    if (marker === 0x00) return false; // a stuffed FF outside a scan, or the file ends after fill bytes
    if (marker === 0xd9) return sawScan && pos === b.length;
    if (marker === 0xd8 || marker === 0x01 || isRestart(marker)) continue; // no length
    pos += u16be(b, pos);
    if (marker === 0xda) {
      sawScan = true;
      pos = endOfScan(b, pos);
    }
  }
  return false;
}

/** Where a run of GIF data sub-blocks starting at `from` ends (after its empty block), or Infinity. */
function endOfSubBlocks(b: Uint8Array, from: number): number {
  let at = from;
  for (let size = b[at]; size !== undefined; size = b[at]) {
    at += 1 + size;
    if (size === 0) return at;
  }
  return Infinity;
}

const colourTable = (flags: number): number => (flags & 0x80 ? 3 * (1 << ((flags & 0x07) + 1)) : 0);

/** The area GIF frames reach (their largest right and bottom edges), read while walking them. */
interface GifExtent {
  width: number;
  height: number;
}

/**
 * After the 13-byte header and its colour table: extensions (21, label, sub-blocks) and images
 * (descriptor, colour table, LZW code size, sub-blocks), at least one image, and the trailer (3B)
 * as the last byte of the file. Returns how far the frames reach, or undefined when incomplete.
 */
export function gifExtent(b: Uint8Array): GifExtent | undefined {
  const extent = { width: 0, height: 0 };
  let images = 0;
  // A block cut short sends the walk past the end (no block there): incomplete.
  for (let pos = 13 + colourTable(b[10] ?? 0); ; ) {
    const block = b[pos];
    if (block === 0x3b) return images > 0 && pos + 1 === b.length ? extent : undefined;
    if (block === 0x21) {
      pos = endOfSubBlocks(b, pos + 2);
    } else if (block === 0x2c) {
      extent.width = Math.max(extent.width, u16le(b, pos + 1) + u16le(b, pos + 5));
      extent.height = Math.max(extent.height, u16le(b, pos + 3) + u16le(b, pos + 7));
      images += 1;
      pos = endOfSubBlocks(b, pos + 10 + colourTable(b[pos + 9] ?? 0) + 1); // + LZW minimum code size
    } else {
      return undefined;
    }
  }
}

/**
 * RIFF size (little-endian, at 4) counts everything after the first 8 bytes and equals what is
 * there (image-sniff has read "WEBP" and a first chunk's header); the chunks after "WEBP" (fourcc, size, data, a pad byte after odd sizes) fill it exactly.
 */
export function isCompleteWebp(b: Uint8Array): boolean {
  if (u32le(b, 4) + 8 !== b.length) return false;
  let pos = 12;
  while (pos + 8 <= b.length) {
    const size = u32le(b, pos + 4);
    pos += 8 + size + (size % 2);
  }
  return pos === b.length;
}
