// Request bodies: the spec's event over 1,000 known devices, first sightings, and events carrying a
// real, unique PNG (the media service stores by content hash, so a repeated image would be a free hit).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync, inflateSync } from 'node:zlib';

export const DOMAIN = 'bench.camera.video';
export const DEVICES = 1000;
const IMAGE_BYTES = 117 * 1024;

/** The spec's example event, as the steady and first-sighting scenarios send it. */
function event(properties = { zone: 'lobby', confidence: '0.93' }) {
  return {
    event_type: { event_type: 'motion_detected', display_name: 'Motion detected', display_description: 'Motion was detected in the field of view' },
    event_data: {
      event_additional_properties: properties,
      images: ['https://cdn.example.com/snapshots/1.jpg'],
      video_clips: ['https://cdn.example.com/clips/1.mp4'],
    },
  };
}

function source(device, objectId) {
  return { device_name: device, object_id: objectId, object_domain: DOMAIN, object_name: `Camera ${objectId}`, object_type: 'video_channel' };
}

/** Prebuilt so the load tool spends nothing on JSON: request n uses device n % 1000 and its own object. */
const steadyBodies = Array.from({ length: DEVICES }, (_, i) => JSON.stringify({ source: source(`bench-dev-${i}`, `cam-${i}`), event: event() }));

/** Body of request n in the steady, sequential and scale scenarios. */
export const steadyBody = (n) => steadyBodies[n % DEVICES];

/** Events in one request of the batch scenario. */
export const BATCH_EVENTS = 100;
const batchBodies = Array.from({ length: DEVICES / BATCH_EVENTS }, (_, b) => `{"events":[${steadyBodies.slice(b * BATCH_EVENTS, (b + 1) * BATCH_EVENTS).join(',')}]}`);

/** Body of request n in the batch scenario: 100 of the steady events (known devices), in turn. */
export const batchBody = (n) => batchBodies[n % batchBodies.length];

/** Bodies naming a new device and a new object each (`prefix` makes them new in every run). */
export function firstSightingBodies(prefix) {
  const head = `{"source":{"device_name":"${prefix}`;
  const rest = JSON.stringify(event());
  return (n) => `${head}${n}","object_id":"obj-${n}","object_domain":"${DOMAIN}","object_name":"First sighting","object_type":"video_channel"},"event":${rest}}`;
}

/** One PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * The constant part of a ≈117 KiB RGB PNG of random (incompressible) pixels: signature, IHDR, IDAT
 * and a padding tEXt chunk sized so the length is a multiple of 3, which makes its Base64 a prefix
 * of the Base64 of every variant.
 */
function pngPrefix() {
  const width = 256;
  const row = 1 + width * 3;
  const height = Math.round((IMAGE_BYTES - 160) / row);
  const raw = Buffer.alloc(height * row);
  for (let y = 0; y < height; y++) randomBytes(width * 3).copy(raw, y * row + 1); // filter byte 0: None
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits per sample, truecolour, deflate, no filter method, no interlace
  const idat = deflateSync(raw);
  if (inflateSync(idat).length !== raw.length) throw new Error('PNG pixel data does not round-trip');
  const head = [Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', idat)];
  const length = head.reduce((sum, b) => sum + b.length, 0) + 12 + 'Comment\0'.length;
  head.push(chunk('tEXt', Buffer.from(`Comment\0${'.'.repeat((3 - (length % 3)) % 3)}`, 'latin1')));
  return { bytes: Buffer.concat(head), width, height };
}

/**
 * Bodies carrying a unique PNG each: a tEXt chunk with the run id and a counter, then IEND, follows
 * the constant prefix, so a body is fixed Base64 + ≈70 fresh characters (no 117 KiB encode per request).
 * The event comes first and the source last, so the 160 KB head is one string shared by all devices.
 */
export function imageBodies(runId) {
  const png = pngPrefix();
  const tail = (n) => Buffer.concat([chunk('tEXt', Buffer.from(`bench\0${runId}-${n}`, 'latin1')), chunk('IEND', Buffer.alloc(0))]);
  const json = JSON.stringify({ event: event({ zone: 'lobby', confidence: '0.93', base64_image: '@IMAGE@' }), source: '@SOURCE@' });
  const [head, rest] = json.split('@IMAGE@');
  const [middle, end] = rest.split('"@SOURCE@"');
  const before = head + png.bytes.toString('base64');
  const sources = Array.from({ length: DEVICES }, (_, i) => JSON.stringify(source(`bench-dev-${i}`, `cam-${i}`)));
  return {
    width: png.width,
    height: png.height,
    bytes: png.bytes.length + tail(0).length,
    /** The whole PNG of request n (for checks; the load never builds it). */
    png: (n) => Buffer.concat([png.bytes, tail(n)]),
    body: (n) => `${before}${tail(n).toString('base64')}${middle}${sources[((n % DEVICES) + DEVICES) % DEVICES]}${end}`,
  };
}

/** Size and dimensions of the bench PNG, and what `file` makes of it when it is installed (a second opinion). */
export function describeImage(images, log) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-png-'));
  let file;
  try {
    writeFileSync(join(dir, 'bench.png'), images.png(0));
    file = execFileSync('file', ['-b', join(dir, 'bench.png')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    file = 'not checked (no `file` command)';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!file.startsWith('not checked') && !file.startsWith('PNG image data')) throw new Error(`the bench PNG is not recognised by file: ${file}`);
  log(`image: ${images.bytes.toLocaleString('en')} bytes (${(images.bytes / 1024).toFixed(1)} KiB), ${images.width}x${images.height}; file: ${file}`);
  return { bytes: images.bytes, width: images.width, height: images.height, file };
}
