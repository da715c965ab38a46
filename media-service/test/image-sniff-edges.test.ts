/** Edges of the header parsers: the exact byte or bound that separates accepted from refused. */
import { crc32 } from 'node:zlib';
import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../src/domain/image-sniff.js';
import { samples, variants } from '../../test/support/images.js';

/**
 * 'accepted', or the refusal's rule; a corrupt file is 'corrupt' when its header cannot be read and
 * 'incomplete' when the header reads but its structure does not run to the end (the two messages).
 */
function rule(input: Uint8Array): unknown {
  try {
    sniffImage(input);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.details.rule !== 'corrupt') return err.details.rule;
    if (err.message.endsWith('its width and height cannot be read')) return 'corrupt';
    if (err.message.endsWith('its structure is incomplete (cut short, a broken block, or bytes after its end)')) return 'incomplete';
    return err.message;
  }
  return 'accepted';
}

const bytes = (...parts: (Uint8Array | number[] | string)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const SOI = [0xff, 0xd8];
const segment = (marker: number, payload: number[]): number[] => [0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload];
const frame = (width: number, height: number): number[] => segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]);
// Would read as 4660x22136 if taken for a frame header.
const decoy = [8, 0x56, 0x78, 0x12, 0x34, 1, 1, 0x11, 0];
/** A scan (SOS segment and entropy-coded data) and EOI: what completes a JPEG after its frame header. */
const SCAN_AND_EOI = [...segment(0xda, [1, 1, 0, 0, 0x3f, 0]), 0x12, 0x34, 0xff, 0xd9];

/** A PNG chunk: length, type, data, CRC of type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  chunk.set(data, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}
/** What completes a PNG after its IHDR: image data and the end chunk. */
const PNG_END = Buffer.concat([pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0, 0, 0, 0, 1])), pngChunk('IEND', Buffer.alloc(0))]);

/** A PNG signature and a first chunk with a correct CRC, then IDAT and IEND. */
function png(type: string, width: number, height: number, declaredLength = 13): Buffer {
  const body = Buffer.alloc(17);
  body.write(type, 0, 'latin1');
  body.writeUInt32BE(width, 4);
  body.writeUInt32BE(height, 8);
  body[12] = 8;
  body[13] = 2;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(declaredLength);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), length, body, crc, PNG_END]);
}

describe('PNG', () => {
  it('accepts 2^31-1 in either dimension, refuses 2^31 in the height', () => {
    expect(sniffImage(png('IHDR', 0x7fffffff, 1))).toMatchObject({ width: 0x7fffffff, height: 1 });
    expect(sniffImage(png('IHDR', 1, 0x7fffffff))).toMatchObject({ width: 1, height: 0x7fffffff });
    expect(rule(png('IHDR', 1, 0x80000000))).toBe('corrupt');
  });

  it('refuses an IHDR cut inside its CRC, even when the missing byte would read as the zero it should be', () => {
    // Find dimensions whose IHDR CRC ends in 0x00: a reader that took missing bytes as 0 would accept the cut file.
    let width = 1;
    while ((png('IHDR', width, 1).readUInt32BE(29) & 0xff) !== 0) width++;
    const whole = png('IHDR', width, 1);
    expect(sniffImage(whole)).toMatchObject({ width, height: 1 });
    expect(rule(whole.subarray(0, 32))).toBe('corrupt');
  });

  it('refuses a first chunk that is not IHDR or not 13 bytes long, even with a correct CRC', () => {
    expect(rule(png('IHDR', 10, 10))).toBe('accepted');
    expect(rule(png('IDAT', 10, 10))).toBe('corrupt');
    expect(rule(png('IHDR', 10, 10, 14))).toBe('corrupt');
  });
});

describe('JPEG', () => {
  it.each([
    ['an empty segment (length 2)', segment(0xe0, [])],
    ['a second SOI', [0xff, 0xd8]],
    ['RST7', [0xff, 0xd7]],
    ['a reserved marker below C0 holding a decoy', segment(0xbf, decoy)],
  ])('walks past %s to the frame', (_name, before) => {
    expect(sniffImage(bytes(SOI, before, frame(33, 17), SCAN_AND_EOI))).toMatchObject({ width: 33, height: 17 });
  });

  it('accepts a frame header of exactly 8 bytes, and refuses it when it ends the file', () => {
    expect(sniffImage(bytes(SOI, [0xff, 0xc0, 0x00, 0x08, 8, 0, 17, 0, 33, 1], SCAN_AND_EOI))).toMatchObject({ width: 33, height: 17 });
    expect(rule(bytes(SOI, [0xff, 0xc0, 0x00, 0x08, 8, 0, 17, 0, 33, 1]))).toBe('incomplete');
  });

  it('ends a scan only at a marker: stuffed FF 00, restarts and fill bytes belong to it', () => {
    const scan = [...segment(0xda, [1, 1, 0, 0, 0x3f, 0]), 0xff, 0x00, 0xff, 0xd3, 0x12, 0xff, 0xff, 0xd9];
    expect(sniffImage(bytes(SOI, frame(33, 17), scan))).toMatchObject({ width: 33, height: 17 });
    expect(rule(bytes(SOI, frame(33, 17), scan.slice(0, -1)))).toBe('incomplete');
    expect(rule(bytes(SOI, frame(33, 17), [0xff, 0xd9]))).toBe('incomplete');
  });

  it.each([
    ['a frame without its FF', [...segment(0xe0, []), ...frame(33, 17).slice(1)]],
    ['a stuffed FF 00 before the frame', [0xff, 0x00, 0x00, 0x02, ...frame(33, 17)]],
    ['EOI before the frame', [0xff, 0xd9, 0x00, 0x02, ...frame(33, 17)]],
    ['a frame header without its component count', frame(33, 17).slice(0, 9)],
    ['a frame header whose length is below 8', [0xff, 0xc0, 0x00, 0x07, 8, 0, 17, 0, 33, 1, 1, 0x11, 0]],
  ])('refuses %s as corrupt', (_name, rest) => {
    expect(rule(bytes(SOI, rest))).toBe('corrupt');
  });
});

describe('GIF', () => {
  const screen = (width: number, height: number) => bytes('GIF89a', [width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0, 0]);

  const image = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 1, 0, 0];

  it('accepts a 13-byte header with one image and the trailer; refuses the header alone, 12 bytes or a zero height', () => {
    expect(sniffImage(bytes(screen(7, 9), image, [0x3b]))).toMatchObject({ width: 7, height: 9, pixels: 63 });
    expect(rule(screen(7, 9))).toBe('incomplete');
    expect(rule(bytes(screen(7, 9), [0x3b]))).toBe('incomplete');
    expect(rule(screen(7, 9).subarray(0, 12))).toBe('corrupt');
    expect(rule(bytes(screen(7, 0), image, [0x3b]))).toBe('corrupt');
  });

  it('refuses a frame descriptor cut short, and counts a whole one', () => {
    const descriptor = [0x2c, 0, 0, 0, 0, 100, 0, 50, 0, 0];
    expect(rule(bytes(screen(1, 1), descriptor.slice(0, 9)))).toBe('incomplete');
    expect(rule(bytes(screen(1, 1), descriptor))).toBe('incomplete');
    expect(sniffImage(bytes(screen(1, 1), descriptor, [2, 1, 0, 0, 0x3b]))).toMatchObject({ pixels: 5000 });
  });

  it('skips a frame\'s local colour table to reach the next frame', () => {
    const table = Array.from({ length: 6 }, () => 0x2c); // 2 colours; bytes that look like descriptors
    const first = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0x80, ...table, 2, 1, 0, 0];
    const second = [0x2c, 0, 0, 0, 0, 30, 0, 20, 0, 0, 2, 1, 0, 0];
    expect(sniffImage(bytes(screen(1, 1), first, second, [0x3b]))).toMatchObject({ pixels: 600 });
  });

  it('refuses anything after the trailer', () => {
    expect(sniffImage(bytes(screen(2, 2), image, [0x3b]))).toMatchObject({ pixels: 4 });
    expect(rule(bytes(screen(2, 2), image, [0x3b, 0x2c, 0, 0, 0, 0, 100, 0, 50, 0, 0]))).toBe('incomplete');
  });

  it('refuses sub-blocks running past the end', () => {
    expect(rule(bytes(screen(2, 2), image, [0x21, 0xf9, 0x10, 1, 2]))).toBe('incomplete');
    expect(rule(bytes(screen(2, 2), image, [0x21, 0xf9, 0x02, 1, 2, 0x3b]))).toBe('incomplete');
    expect(sniffImage(bytes(screen(2, 2), image, [0x21, 0xf9, 0x02, 1, 2, 0, 0x3b]))).toMatchObject({ pixels: 4 });
  });
});

describe('WEBP', () => {
  /** A RIFF/WEBP holding one chunk (padded to an even size), its RIFF size exact. */
  const riff = (chunk: string, data: number[]) => {
    const padded = data.length % 2 === 1 ? [...data, 0] : data;
    return bytes('RIFF', [12 + padded.length, 0, 0, 0], 'WEBP', chunk, [data.length, 0, 0, 0], padded);
  };

  it('reads 24-bit VP8X canvas sizes', () => {
    const width = 0x012345 + 1;
    const height = 0x020001 + 1;
    expect(sniffImage(riff('VP8X', [0, 0, 0, 0, 0x45, 0x23, 0x01, 0x01, 0x00, 0x02]))).toMatchObject({ width, height });
  });

  it('accepts headers of exactly the minimum length', () => {
    expect(sniffImage(riff('VP8L', [0x2f, 0x09, 0x40, 0x01, 0x00]))).toMatchObject({ width: 10, height: 6 });
    expect(sniffImage(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 10, 0, 6, 0]))).toMatchObject({ width: 10, height: 6 });
  });

  it('refuses VP8L cut before its size bits, and VP8 cut inside its height, even when the pad byte would complete it', () => {
    expect(rule(riff('VP8L', [0x2f, 0x09, 0x40, 0x01]))).toBe('corrupt');
    expect(rule(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 10, 0, 6]))).toBe('corrupt');
  });

  it('reads a first chunk\'s header only within its declared size, not from the chunk after it', () => {
    const next = [...Buffer.from('EXIF'), 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const short = (chunk: string, data: number[]) => {
      const body = bytes('WEBP', chunk, [data.length, 0, 0, 0], data, data.length % 2 === 1 ? [0] : [], next);
      return bytes('RIFF', [body.length, 0, 0, 0], body);
    };
    expect(rule(short('VP8L', [0x2f, 0x09, 0x40, 0x01, 0x00]))).toBe('accepted');
    expect(rule(short('VP8L', [0x2f, 0x09, 0x40, 0x01]))).toBe('corrupt');
    expect(rule(short('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 10, 0, 6, 0]))).toBe('accepted');
    expect(rule(short('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 10, 0]))).toBe('corrupt');
    expect(rule(short('VP8X', [0, 0, 0, 0, 8, 0, 0, 5, 0, 0]))).toBe('accepted');
    expect(rule(short('VP8X', [0, 0, 0, 0, 8, 0, 0, 5]))).toBe('corrupt');
  });

  it('needs both RIFF and WEBP', () => {
    const good = Buffer.from(variants.webpLossless.bytes);
    expect(rule(good)).toBe('accepted');
    expect(rule(Buffer.concat([Buffer.from('RIFX'), good.subarray(4)]))).toBe('format');
    expect(rule(Buffer.concat([good.subarray(0, 8), Buffer.from('WAVE'), good.subarray(12)]))).toBe('format');
  });
});

it('explains an unsupported format in the words callers see', () => {
  expect(() => sniffImage(samples.gif.bytes.subarray(1))).toThrow('not a supported image: only JPEG, PNG, GIF and WEBP are accepted');
});
