/**
 * Sample images for tests: small but real files (made with libjpeg-turbo, ImageMagick and libwebp,
 * checked to decode with `file`, `identify` and `dwebp`), each with known dimensions, plus hostile
 * inputs that the media service must reject. Width and height differ so swapped axes are caught.
 */
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** A valid image with what the media service should report for it. */
export interface SampleImage {
  bytes: Buffer;
  contentType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  ext: 'jpg' | 'png' | 'gif' | 'webp';
  width: number;
  height: number;
}

const b64 = (text: string): Buffer => Buffer.from(text, 'base64');

/** One sample per supported format; the WEBP is lossy (a VP8 chunk). */
export const samples: Readonly<Record<'jpeg' | 'png' | 'gif' | 'webp', SampleImage>> = Object.freeze({
  // Baseline JPEG (SOF0) 7x5, JFIF.
  jpeg: {
    bytes: b64(
      '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAFAAcDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAYEAEAAwEAAAAAAAAAAAAAAAAAAQQV8P/EABUBAQEAAAAAAAAAAAAAAAAAAAIH/8QAGhEAAQUBAAAAAAAAAAAAAAAAAAIFFlORVP/aAAwDAQACEQMRAD8Ah+1Z6QFzi7RzpwcjdL1af//Z',
    ),
    contentType: 'image/jpeg',
    ext: 'jpg',
    width: 7,
    height: 5,
  },
  // PNG 4x3, 2-bit palette.
  png: {
    bytes: b64('iVBORw0KGgoAAAANSUhEUgAAAAQAAAADAgMAAADJmkZVAAAACVBMVEUAgAB/vwD//wCVB4VUAAAADklEQVQI12NgYAhlWAUAAa8BAKa6U6QAAAAASUVORK5CYII='),
    contentType: 'image/png',
    ext: 'png',
    width: 4,
    height: 3,
  },
  // GIF89a 5x3 with a global colour table and a Netscape-style application extension.
  gif: {
    bytes: b64('R0lGODlhBQADAPECAAAAAICAgP///wAAACH5BAAAAAAAIf8LSW1hZ2VNYWdpY2sOZ2FtbWE9MC40NTQ1NDUALAAAAAAFAAMAAAIFlB2ZwFwAOw=='),
    contentType: 'image/gif',
    ext: 'gif',
    width: 5,
    height: 3,
  },
  // Lossy WEBP 9x6 (RIFF/WEBP/VP8).
  webp: {
    bytes: b64('UklGRk4AAABXRUJQVlA4IEIAAADwAQCdASoJAAYAAUAmJagCdLoAAwhAXqAA99/l3iv2sOMyd24wf/DX/s43Cm/+Gv/ZxuuIK0r/6gz/yDP/IM/TwAA='),
    contentType: 'image/webp',
    ext: 'webp',
    width: 9,
    height: 6,
  },
});

/** Further real variants the sniffer must read: other WEBP chunk kinds and a progressive JPEG. */
export const variants: Readonly<Record<'webpLossless' | 'webpExtended' | 'jpegProgressive', SampleImage>> = Object.freeze({
  // Lossless WEBP 9x6 (VP8L).
  webpLossless: {
    bytes: b64('UklGRkAAAABXRUJQVlA4TDQAAAAvCEABAC/w0m+BQOIvehgLBFK4xs1/uG1EG1AIyQrVFyCFFFJIIX+XSyKi/ylfaGODL3Ek'),
    contentType: 'image/webp',
    ext: 'webp',
    width: 9,
    height: 6,
  },
  // Extended WEBP 9x6 (VP8X canvas, ALPH and VP8 chunks).
  webpExtended: {
    bytes: b64(
      'UklGRpYAAABXRUJQVlA4WAoAAAAQAAAACAAABQAAQUxQSCYAAAABLyAQSDHHyR4RMQkKIVmh+gKkkEIKKeTvcklE9D/lC21s8CWOBFZQOCBKAAAA8AIAnQEqCQAGAAFAJiWoAnS6ASYD+AfgBigAHVrcJcAA/vt93a4lv4/9tGl/GBXn/WjS/jArz/z2j/z2j+sKvRvmeV0bVUiAAAA=',
    ),
    contentType: 'image/webp',
    ext: 'webp',
    width: 9,
    height: 6,
  },
  // Progressive JPEG (SOF2) 7x5.
  jpegProgressive: {
    bytes: b64(
      '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wgARCAAFAAcDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAVAQEBAAAAAAAAAAAAAAAAAAABBv/aAAwDAQACEAMQAAABlRWP/8QAFhAAAwAAAAAAAAAAAAAAAAAAAAET/9oACAEBAAEFAqs//8QAFxEAAwEAAAAAAAAAAAAAAAAAAAQUUv/aAAgBAwEBPwG1jZ//xAAYEQACAwAAAAAAAAAAAAAAAAAAAQQUUv/aAAgBAgEBPwGhGwj/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/9oACAEBAAY/An//xAAUEAEAAAAAAAAAAAAAAAAAAAAA/9oACAEBAAE/IT//2gAMAwEAAgADAAAAEAv/xAAVEQEBAAAAAAAAAAAAAAAAAAAAYf/aAAgBAwEBPxC5/8QAFREBAQAAAAAAAAAAAAAAAAAAAPH/2gAIAQIBAT8QnP/EABYQAAMAAAAAAAAAAAAAAAAAAAAR8P/aAAgBAQABPxC2f//Z',
    ),
    contentType: 'image/jpeg',
    ext: 'jpg',
    width: 7,
    height: 5,
  },
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk with its length and CRC, so the files below are well formed, not just their headers. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8; // bit depth
  data[9] = 2; // colour type: truecolour RGB
  return pngChunk('IHDR', data);
}

/**
 * A real RGB PNG of random pixels, about `minBytes` long or a little more (stored deflate blocks,
 * so the size is predictable). For message-size limits: e.g. `largePng(9 * 1024 * 1024)`.
 */
export function largePng(minBytes: number): SampleImage {
  const width = 1024;
  const rowBytes = 1 + width * 3;
  const height = Math.max(1, Math.ceil(minBytes / rowBytes));
  const raw = randomBytes(rowBytes * height);
  for (let row = 0; row < height; row += 1) raw[row * rowBytes] = 0; // filter type "none" on every row
  const bytes = Buffer.concat([PNG_SIGNATURE, ihdr(width, height), pngChunk('IDAT', deflateSync(raw, { level: 0 })), pngChunk('IEND', Buffer.alloc(0))]);
  return { bytes, contentType: 'image/png', ext: 'png', width, height };
}

/** A width×height RGB PNG of a colour gradient as Base64 (what `base64_image` takes): a thumbnail that shows something. */
export function gradientPng(width: number, height: number): string {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const at = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) rows.set([Math.round((255 * x) / width), Math.round((255 * y) / height), 160], at + 1 + x * 3);
  }
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]).toString('base64');
}

/** Inputs the media service must refuse. */
export const hostile = Object.freeze({
  /** An SVG document: an image to a browser, script to an attacker; not an accepted format. */
  svg: Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>\n'),
  /** A well-formed PNG (correct CRCs, IDAT, IEND) whose IHDR claims 100000x100000 pixels: a decompression bomb. */
  pngBomb: Buffer.concat([PNG_SIGNATURE, ihdr(100_000, 100_000), pngChunk('IDAT', deflateSync(Buffer.alloc(1024))), pngChunk('IEND', Buffer.alloc(0))]),
  /** The PNG signature and nothing else: no header to read dimensions from. */
  truncatedPng: Buffer.from(PNG_SIGNATURE),
  /** An HTML page. */
  html: Buffer.from('<!DOCTYPE html><html><body><img src=x onerror="alert(1)"></body></html>\n'),
  /** A real 2x2 24-bit BMP: a genuine image, but not one of the four formats. */
  bmp: b64(
    'Qk2aAAAAAAAAAIoAAAB8AAAAAgAAAAIAAAABABgAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAD/AAD/AAD/AAAAAAAA/0JHUnMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAD/AAD/AAAAAP8AAP8AAA==',
  ),
});

export const { svg, pngBomb, truncatedPng, html, bmp } = hostile;
