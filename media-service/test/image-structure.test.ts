/**
 * An image is accepted only when its structure is complete (without decoding a pixel): PNG has
 * IDAT and ends with IEND, every chunk's CRC right; JPEG has a scan and ends with EOI; GIF ends
 * with its trailer after at least one image; WEBP's RIFF size is its length. So no strict prefix
 * of a valid image is accepted, which the properties below check on generated images of each format.
 */
import { crc32 } from 'node:zlib';
import { AppError } from '@dynamic-events/proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../src/domain/image-sniff.js';
import { largePng, samples, variants } from '../../test/support/images.js';

/** 'accepted', or the rule of the INVALID_ARGUMENT refusal (anything else fails the test). */
function outcome(input: Uint8Array): string {
  try {
    sniffImage(input);
    return 'accepted';
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('INVALID_ARGUMENT');
    return String((err as AppError).details.rule);
  }
}

/** Every strict prefix is refused; the whole is accepted. */
function expectOnlyWholeAccepted(image: Uint8Array): void {
  expect(outcome(image)).toBe('accepted');
  for (let cut = 0; cut < image.length; cut++) expect({ cut, rule: outcome(image.subarray(0, cut)) }).not.toEqual({ cut, rule: 'accepted' });
}

const u8 = fc.integer({ min: 0, max: 255 });
const bytesOf = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b));
const cat = (...parts: (Buffer | number[] | string)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const u32 = (n: number, le = false) => {
  const b = Buffer.alloc(4);
  if (le) b.writeUInt32LE(n);
  else b.writeUInt32BE(n);
  return b;
};

function pngChunk(type: string, data: Buffer): Buffer {
  const body = cat(type, data);
  return cat(u32(data.length), body, u32(crc32(body)));
}
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const ihdr = (width: number, height: number) => pngChunk('IHDR', cat(u32(width), u32(height), [8, 2, 0, 0, 0]));
/** Ancillary chunks whose data may hold bytes that read like IEND or a chunk header. */
const ancillary = fc.array(bytesOf(40).map((data) => pngChunk('tEXt', cat(data, 'IEND'))), { maxLength: 2 });
const pngArb = fc
  .tuple(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 5000 }), ancillary, fc.array(bytesOf(60), { minLength: 1, maxLength: 3 }), ancillary)
  .map(([w, h, before, idat, after]) => cat(PNG_SIGNATURE, ihdr(w, h), ...before, ...idat.map((d) => pngChunk('IDAT', d)), ...after, pngChunk('IEND', Buffer.alloc(0))));

const segment = (marker: number, payload: Buffer) => cat([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff], payload);
/** Entropy-coded data: every FF stuffed with 00, restart markers between runs. */
const entropy = fc.array(fc.tuple(bytesOf(30), fc.integer({ min: 0xd0, max: 0xd7 })), { maxLength: 3 }).map((runs) =>
  cat(...runs.map(([data, rst]) => cat(Buffer.from([...data].flatMap((b) => (b === 0xff ? [0xff, 0] : [b]))), [0xff, rst]))),
);
const scan = entropy.map((data) => cat(segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])), data));
const jpegArb = fc
  .tuple(fc.integer({ min: 1, max: 9000 }), fc.integer({ min: 1, max: 9000 }), fc.array(bytesOf(20).map((d) => segment(0xfe, cat(d, [0xff, 0xd9]))), { maxLength: 2 }), fc.array(scan, { minLength: 1, maxLength: 3 }))
  .map(([w, h, comments, scans]) =>
    cat([0xff, 0xd8], ...comments, segment(0xc2, Buffer.from([8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0])), ...scans.map((s) => cat(segment(0xc4, Buffer.from([0, 1, 0xff, 0xd9])), s)), [0xff, 0xd9]),
  );

const subBlocks = fc.array(bytesOf(20).filter((d) => d.length > 0), { maxLength: 3 }).map((blocks) => cat(...blocks.map((d) => cat([d.length], d)), [0]));
const extension = fc.tuple(u8, subBlocks).map(([label, blocks]) => cat([0x21, label], blocks));
const image = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.boolean(), subBlocks).map(([w, h, table, blocks]) =>
  cat([0x2c, 0, 0, 0, 0, w & 0xff, w >> 8, h & 0xff, h >> 8, table ? 0x80 : 0], table ? Buffer.alloc(6, 0x3b) : [], [2], blocks),
);
const gifArb = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.array(fc.oneof(extension, image), { maxLength: 3 }), image)
  .map(([w, h, blocks, last]) => cat('GIF89a', [w & 0xff, w >> 8, h & 0xff, h >> 8, 0x81, 0, 0], Buffer.alloc(12, 0x3b), ...blocks, last, [0x3b]));

const riffChunk = (type: string, data: Buffer) => cat(type, u32(data.length, true), data, data.length % 2 === 1 ? [0] : []);
const vp8l = fc.tuple(fc.integer({ min: 1, max: 0x4000 }), fc.integer({ min: 1, max: 0x4000 }), bytesOf(40)).map(([w, h, data]) => {
  const bits = ((w - 1) | ((h - 1) << 14)) >>> 0;
  return riffChunk('VP8L', cat([0x2f], u32(bits, true), data));
});
const webpArb = fc.tuple(vp8l, fc.array(bytesOf(9).map((d) => riffChunk('EXIF', d)), { maxLength: 2 })).map(([first, extra]) => {
  const body = cat('WEBP', first, ...extra);
  return cat('RIFF', u32(body.length, true), body);
});

describe('no strict prefix of a valid image is accepted', () => {
  it('the PNG of a signature and IHDR only (33 bytes) is corrupt', () => {
    expect(outcome(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAFCAIAAADtz9qM', 'base64'))).toBe('corrupt');
  });

  it.each([...Object.entries(samples), ...Object.entries(variants)])('%s sample', (_name, sample) => expectOnlyWholeAccepted(sample.bytes));

  it('a large PNG', () => expectOnlyWholeAccepted(largePng(3000).bytes));

  it('a WEBP above 64 KiB (RIFF and chunk sizes past 16 bits)', () => {
    const chunk = riffChunk('VP8L', cat([0x2f, 0x09, 0x40, 0x01, 0x00], Buffer.alloc(70_001, 7)));
    const body = cat('WEBP', chunk, riffChunk('EXIF', Buffer.alloc(65_537, 1)));
    const webp = cat('RIFF', u32(body.length, true), body);
    expect(outcome(webp)).toBe('accepted');
    for (const cut of [webp.length - 1, webp.length - 65_546, 70_000, 20]) expect(outcome(webp.subarray(0, cut))).toBe('corrupt');
  });

  it.each([
    ['PNG', pngArb],
    ['JPEG', jpegArb],
    ['GIF', gifArb],
    ['WEBP', webpArb],
  ])('generated %s images', (_name, arb) => {
    fc.assert(fc.property(arb, expectOnlyWholeAccepted), { numRuns: 150 });
  });
});

describe('an incomplete or broken structure is corrupt', () => {
  const png = samples.png.bytes;
  const iend = pngChunk('IEND', Buffer.alloc(0));
  const withByte = (b: Buffer, at: number, value: number) => Object.assign(Buffer.from(b), { [at < 0 ? b.length + at : at]: value });
  it.each([
    ['PNG with bytes after IEND', cat(png, [0])],
    ['PNG without IDAT', cat(PNG_SIGNATURE, ihdr(4, 3), iend)],
    ['PNG whose IDAT CRC is wrong', withByte(png, -13, png[png.length - 13]! ^ 1)],
    ['PNG whose IEND has data', cat(png.subarray(0, -12), pngChunk('IEND', Buffer.from([0])))],
    ['PNG with a chunk running past the end', cat(png.subarray(0, -12), u32(100), 'tEXt', Buffer.alloc(8))],
    ['JPEG without a scan', cat([0xff, 0xd8], segment(0xc0, Buffer.from([8, 0, 5, 0, 7, 1, 1, 0x11, 0])), [0xff, 0xd9])],
    ['JPEG with bytes after EOI', cat(samples.jpeg.bytes, [0])],
    ['JPEG ending inside a stuffed FF', cat(samples.jpeg.bytes.subarray(0, -2), [0xff])],
    ['GIF without an image', cat(samples.gif.bytes.subarray(0, 13), [0x3b])],
    ['GIF with bytes after the trailer', cat(samples.gif.bytes, [0])],
    ['GIF with an unknown block', cat(samples.gif.bytes.subarray(0, -1), [0x00, 0x3b])],
    ['GIF whose image descriptor has another introducer', cat(samples.gif.bytes.subarray(0, -1), [0x2b, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 1, 0, 0, 0x3b])],
    ['JPEG with a stuffed FF 00 between segments', cat(samples.jpeg.bytes.subarray(0, -2), segment(0xc4, Buffer.alloc(0)), [0xff, 0x00, 0x00, 0x02], [0xff, 0xd9])],
    ['JPEG ending in fill bytes', cat(samples.jpeg.bytes.subarray(0, -1), [0xff])],
    ['WEBP whose RIFF size is one short', withByte(samples.webp.bytes, 4, samples.webp.bytes[4]! - 1)],
    ['WEBP whose RIFF size is one long', withByte(samples.webp.bytes, 4, samples.webp.bytes[4]! + 1)],
    ['WEBP with bytes after the RIFF', cat(samples.webp.bytes, [0, 0])],
    ['WEBP whose chunk runs past the RIFF', withByte(variants.webpLossless.bytes, 16, variants.webpLossless.bytes[16]! + 2)],
  ])('%s', (_name, input) => {
    expect(outcome(input)).toBe('corrupt');
  });
});
