import { crc32 } from 'node:zlib';
import { AppError, UNSUPPORTED_IMAGE_MESSAGE as UNSUPPORTED_MESSAGE } from '@dynamic-events/proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../src/domain/image-sniff.js';
import { hostile, samples, variants, type SampleImage } from '../../test/support/images.js';

/** The AppError a sniff throws, or a failed expectation when it returns or throws anything else. */
function refusal(bytes: Uint8Array): AppError {
  try {
    sniffImage(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the image to be refused');
}

function expectRule(bytes: Uint8Array, rule: 'format' | 'corrupt'): AppError {
  const err = refusal(bytes);
  expect(err.code).toBe('INVALID_ARGUMENT');
  expect(err.details).toMatchObject({ field: 'data', rule });
  return err;
}

const bytes = (...parts: (number[] | string)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

// JPEG pieces: a segment is FF marker, a 2-byte length that counts itself, then the payload.
const segment = (marker: number, payload: number[]): number[] => [0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload];
const frame = (marker: number, width: number, height: number): number[] =>
  segment(marker, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]);
const SOI = [0xff, 0xd8];
/** A scan (SOS segment and entropy-coded data) and EOI: what completes a JPEG after its frame header. */
const SCAN_AND_EOI = [...segment(0xda, [1, 1, 0, 0, 0x3f, 0]), 0x12, 0xff, 0x00, 0x34, 0xff, 0xd9];
// A payload that would read as 4660x22136 if it were mistaken for a frame header.
const decoy = [8, 0x56, 0x78, 0x12, 0x34, 1, 1, 0x11, 0];

function pngWithHeader(width: number, height: number, fixCrc = true): Buffer {
  const body = Buffer.alloc(17);
  body.write('IHDR', 0, 'latin1');
  body.writeUInt32BE(width, 4);
  body.writeUInt32BE(height, 8);
  body[12] = 8;
  body[13] = 2;
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(fixCrc ? crc32(body) : (crc32(body) ^ 1) >>> 0);
  const rest = fixCrc ? [...pngChunk('IDAT', [0x78, 0x9c, 0x03, 0, 0, 0, 0, 1]), ...pngChunk('IEND', [])] : [];
  return Buffer.concat([hostile.truncatedPng, Buffer.from([0, 0, 0, 13]), body, crc, Buffer.from(rest)]);
}

/** A PNG chunk: length, type, data, CRC of type and data. */
function pngChunk(type: string, data: number[]): number[] {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  chunk.set(data, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return [...chunk];
}

describe('sniffImage: supported formats', () => {
  const all: [string, SampleImage][] = [...Object.entries(samples), ...Object.entries(variants)];
  it.each(all)('%s: format, content type and dimensions from the header', (_name, sample) => {
    expect(sniffImage(sample.bytes)).toMatchObject({
      ext: sample.ext,
      contentType: sample.contentType,
      width: sample.width,
      height: sample.height,
      pixels: sample.width * sample.height,
    });
  });

  it('accepts GIF87a as well as GIF89a', () => {
    const gif87 = Buffer.from(samples.gif.bytes);
    gif87.write('GIF87a', 0, 'latin1');
    expect(sniffImage(gif87)).toMatchObject({ format: 'gif', width: 5, height: 3 });
  });

  it('reads PNG dimensions as 32-bit values', () => {
    expect(sniffImage(pngWithHeader(70_000, 3))).toMatchObject({ width: 70_000, height: 3, pixels: 210_000 });
  });
});

describe('sniffImage: JPEG segment walk', () => {
  it.each([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf])('SOF marker %s is a frame header', (marker) => {
    expect(sniffImage(bytes(SOI, segment(0xe0, [1, 2, 3]), frame(marker, 640, 480), SCAN_AND_EOI))).toMatchObject({ width: 640, height: 480 });
  });

  it.each([
    ['DHT', 0xc4],
    ['JPG', 0xc8],
    ['DAC', 0xcc],
  ])('skips %s (in the SOF range but not a frame header)', (_name, marker) => {
    expect(sniffImage(bytes(SOI, segment(marker, decoy), frame(0xc0, 33, 17), SCAN_AND_EOI))).toMatchObject({ width: 33, height: 17 });
  });

  it('skips fill bytes and markers without a length', () => {
    const input = bytes(SOI, [0xff, 0xff, 0xff], segment(0xdb, [0, 1]), [0xff, 0xd0, 0xff, 0x01], frame(0xc2, 2, 1), SCAN_AND_EOI);
    expect(sniffImage(input)).toMatchObject({ width: 2, height: 1 });
  });

  it.each([
    ['scan data before any frame header', bytes(SOI, segment(0xda, [1, 2, 3]), frame(0xc0, 2, 2))],
    ['end of image before any frame header', bytes(SOI, [0xff, 0xd9])],
    ['segments running past the end', bytes(SOI, segment(0xe0, [1, 2]).slice(0, 5))],
    ['a frame header cut short', bytes(SOI, frame(0xc0, 10, 10).slice(0, 7))],
    ['no marker where one must be', bytes(SOI, segment(0xe0, [1, 2]), [0x12, 0x34])],
    ['a segment length below 2', bytes(SOI, [0xff, 0xe0, 0x00, 0x01])],
    ['height 0 (deferred to a DNL marker)', bytes(SOI, frame(0xc0, 10, 0))],
    ['width 0', bytes(SOI, frame(0xc0, 0, 10))],
    ['only the signature', bytes([0xff, 0xd8, 0xff])],
  ])('rejects %s as corrupt', (_name, input) => {
    expect(expectRule(input, 'corrupt').message).toBe('corrupt JPEG image: its width and height cannot be read');
  });
});

describe('sniffImage: corrupt headers of supported formats', () => {
  it.each([
    ['PNG signature only', hostile.truncatedPng],
    ['PNG with a zero width', pngWithHeader(0, 10)],
    ['PNG with a zero height', pngWithHeader(10, 0)],
    ['PNG beyond 2^31-1 pixels wide', pngWithHeader(0x80000000, 1)],
    ['PNG whose IHDR CRC is wrong', pngWithHeader(10, 10, false)],
    ['PNG whose first chunk is not IHDR', Buffer.concat([hostile.truncatedPng, Buffer.from([0, 0, 0, 13]), Buffer.from('IDAT'), Buffer.alloc(21)])],
    ['GIF cut inside the screen descriptor', samples.gif.bytes.subarray(0, 9)],
    ['GIF with a zero width', bytes('GIF89a', [0, 0, 5, 0, 0, 0, 0])],
    ['WEBP VP8 that is not a key frame', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ', [10, 0, 0, 0, 0x01, 0, 0, 0x9d, 0x01, 0x2a, 9, 0, 6, 0])],
    ['WEBP VP8 without its start code', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ', [10, 0, 0, 0, 0x00, 0, 0, 0x9d, 0x01, 0x2b, 9, 0, 6, 0])],
    ['WEBP VP8 with a zero width', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ', [10, 0, 0, 0, 0x00, 0, 0, 0x9d, 0x01, 0x2a, 0, 0, 6, 0])],
    ['WEBP VP8L without its signature byte', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8L', [5, 0, 0, 0, 0x2e, 0, 0, 0, 0])],
    ['WEBP VP8L with an unknown version', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8L', [5, 0, 0, 0, 0x2f, 0, 0, 0, 0x20])],
    ['WEBP VP8X cut short', variants.webpExtended.bytes.subarray(0, 27)],
    ['WEBP VP8 cut short', samples.webp.bytes.subarray(0, 25)],
  ])('%s', (_name, input) => {
    // The header itself is refused, before the structure is walked.
    expect(expectRule(input, 'corrupt').message).toMatch(/^corrupt (PNG|GIF|WEBP) image: its width and height cannot be read$/);
  });
});

describe('sniffImage: anything else is not a supported image', () => {
  it.each([
    ['SVG', hostile.svg],
    ['HTML', hostile.html],
    ['BMP', hostile.bmp],
    ['TIFF (little-endian)', bytes('II*\0', [8, 0, 0, 0], Buffer.alloc(32).toString('latin1'))],
    ['TIFF (big-endian)', bytes('MM\0*', [0, 0, 0, 8], Buffer.alloc(32).toString('latin1'))],
    ['HEIC', bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0], 'mif1heic')],
    ['AVIF', bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0], 'avifmif1miaf')],
    ['ICO', bytes([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0])],
    ['PDF', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')],
    ['plain text', Buffer.from('hello, this is not an image')],
    ['a RIFF WAVE file', bytes('RIFF', [36, 0, 0, 0], 'WAVEfmt ', [16, 0, 0, 0])],
    ['RIFF WEBP whose first chunk is unknown', bytes('RIFF', [0, 0, 0, 0], 'WEBPALPH', [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['RIFF WEBP with no chunk at all', bytes('RIFF', [4, 0, 0, 0], 'WEBP')],
    ['two bytes of a JPEG signature', bytes([0xff, 0xd8])],
    ['seven bytes of a PNG signature', hostile.truncatedPng.subarray(0, 7)],
    ['nothing', Buffer.alloc(0)],
  ])('%s', (_name, input) => {
    expect(expectRule(input, 'format').message).toBe(UNSUPPORTED_MESSAGE);
  });
});

describe('sniffImage: pixel counts for the bomb check', () => {
  it('reports the PNG bomb fixture at its claimed size', () => {
    expect(sniffImage(hostile.pngBomb)).toMatchObject({ width: 100_000, height: 100_000, pixels: 10_000_000_000 });
  });

  it('counts a GIF frame that reaches beyond a tiny logical screen', () => {
    const gif = bytes('GIF89a', [1, 0, 1, 0, 0, 0, 0], [0x2c, 0, 0, 0, 0, 0x60, 0xea, 0x60, 0xea, 0], [2, 1, 0, 0], [0x3b]);
    expect(sniffImage(gif)).toMatchObject({ width: 1, height: 1, pixels: 60_000 * 60_000 });
  });

  it('walks GIF extensions and colour tables to reach later frames', () => {
    const withSecondFrame = Buffer.concat([samples.gif.bytes.subarray(0, -1), bytes([0x2c, 10, 0, 10, 0, 0x90, 1, 0xc8, 0, 0], [2, 1, 0, 0], [0x3b])]);
    expect(sniffImage(withSecondFrame)).toMatchObject({ width: 5, height: 3, pixels: 410 * 210 });
  });
});

describe('sniffImage: hostile input never escapes as anything but INVALID_ARGUMENT', () => {
  function outcome(input: Uint8Array): void {
    try {
      const info = sniffImage(input);
      expect(info.width).toBeGreaterThan(0);
      expect(info.height).toBeGreaterThan(0);
      expect(Number.isFinite(info.pixels)).toBe(true);
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('INVALID_ARGUMENT');
      expect(['format', 'corrupt']).toContain((err as AppError).details.rule);
    }
  }
  const prefixes = [
    [0xff, 0xd8, 0xff],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    [...Buffer.from('GIF89a')],
    [...Buffer.from('RIFF\0\0\0\0WEBPVP8 ')],
    [...Buffer.from('RIFF\0\0\0\0WEBPVP8L')],
    [...Buffer.from('RIFF\0\0\0\0WEBPVP8X')],
  ];
  const sampleBytes = [...Object.values(samples), ...Object.values(variants)].map((s) => s.bytes);

  it('random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (input) => outcome(input)), { numRuns: 2000 });
  });

  it('random bytes behind each supported signature', () => {
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.uint8Array({ maxLength: 256 }), (prefix, rest) => outcome(Uint8Array.from([...prefix, ...rest]))),
      { numRuns: 3000 },
    );
  });

  it('real images cut at any length or with bytes overwritten', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...sampleBytes),
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        (sample, cut, writes) => {
          const input = Buffer.from(sample.subarray(0, cut % (sample.length + 1)));
          for (const [at, value] of writes) if (input.length > 0) input[at % input.length] = value;
          outcome(input);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
