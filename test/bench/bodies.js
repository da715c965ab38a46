// Request bodies for the benchmark: the spec's event over many devices, and events carrying a real,
// unique PNG as base64_image (the media service stores by content hash, so repeats would be free).
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** The steady-state event of device `n % devices` (known once warmed up). */
export function eventBody(device, objectId = `cam-${device}`) {
  return JSON.stringify({
    source: { device_name: device, object_id: objectId, object_domain: 'bench.camera.video', object_name: 'Bench camera', object_type: 'video_channel' },
    event: {
      event_type: { event_type: 'motion_detected', display_name: 'Motion detected', display_description: 'Benchmark event' },
      event_data: { event_additional_properties: { zone: 'lobby', confidence: '0.93' }, images: ['https://cdn.example.com/1.jpg'], video_clips: [] },
    },
  });
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * Bodies with a ≈117 KiB PNG (random, incompressible pixels) whose last chunks hold a counter: the
 * constant prefix is a multiple of 3 bytes, so each body is string concatenation of fixed Base64 and
 * a few fresh characters, not 117 KiB of Base64 encoding per request in the load tool.
 */
export function createImageBodies() {
  const width = 200;
  const height = 196;
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) randomBytes(width * 3).copy(raw, y * (1 + width * 3) + 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  let head = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw))]);
  const pad = (3 - ((head.length + 12 + 4) % 3)) % 3;
  head = Buffer.concat([head, chunk('tEXt', Buffer.from(`pad\0${'x'.repeat(pad)}`, 'latin1'))]);
  const prefix = `{"source":{"device_name":"bench-img","object_id":"cam-img","object_domain":"bench.camera.video","object_name":"Bench camera","object_type":"video_channel"},"event":{"event_type":{"event_type":"snapshot","display_name":"Snapshot","display_description":"Benchmark image"},"event_data":{"event_additional_properties":{"base64_image":"${head.toString('base64')}`;
  const suffix = '"}}}}';
  const tail = (n) => Buffer.concat([chunk('tEXt', Buffer.from(`n\0${String(n).padStart(12, '0')}`, 'latin1')), chunk('IEND', Buffer.alloc(0))]).toString('base64');
  return { imageBytes: head.length + 12 + 14 + 12, body: (n) => prefix + tail(n) + suffix };
}
