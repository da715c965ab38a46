/**
 * End to end over HTTP through all three services, on the embedded defaults `npm start` uses
 * (embedded Postgres, in-process lock, media on disk): what an integration sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { bmp, largePng, pngBomb, samples } from '../support/images.js';
import { assertMatchesSchema } from '../support/openapi.js';
import { tempDir } from '../support/servers.js';
import { getJson, postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';

afterAll(stopAllStacks);

const NINE_DIGITS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;
/** The registry's ids are UUID version 7 (time-ordered). */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let stack: Stack;
let dir: ReturnType<typeof tempDir>;
let url: string;

beforeAll(async () => {
  dir = tempDir('e2e-embedded');
  stack = await startStack({ dataDir: dir.path });
  url = `${stack.api}/dynamic-events`;
});

afterAll(async () => {
  const { code } = await stack.stop('SIGTERM');
  dir.remove();
  expect(code).toBe(0);
});

describe('POST dynamic-events (embedded stack)', () => {
  it('answers the spec example with the created event', async () => {
    const res = await postJson(url, exampleEvent());
    expect(res.status).toBe(200);
    const event = res.body!;
    expect(event.id).toMatch(UUID_V7);
    expect(event).toMatchObject({
      domain: 'acme.camera.video',
      event_type: 'motion_detected',
      rels: ['/objects/acme.camera.video.channel-1'],
      images: ['https://cdn.example.com/snapshots/1.jpg'],
      video_clips: ['https://cdn.example.com/clips/1.mp4'],
      event_additional_properties: { zone: 'lobby', confidence: '0.93' },
    });
    expect(event.created_at).toMatch(NINE_DIGITS);
    expect(event.updated_at).toMatch(NINE_DIGITS);
    assertMatchesSchema('Event', event);

    const again = await getJson(`${stack.api}/dynamic-events/${String(event.id)}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(event);
  });

  it('registers device, object and event type on first sight, and reuses them unchanged', async () => {
    const first = exampleEvent({ device: 'cam-reuse', objectId: 'ch-9', domain: 'acme.reuse', eventType: 'door_open' });
    expect((await postJson(url, first)).status).toBe(200);
    const changed = structuredClone(first);
    changed.source.object_name = 'renamed';
    changed.event.event_type.display_name = 'Another label';
    changed.event.event_type.display_description = 'Another description';
    expect((await postJson(url, changed)).status).toBe(200);

    const device = await getJson(`${stack.api}/devices/cam-reuse`);
    expect(device.status).toBe(200);
    expect(device.body).toMatchObject({ device_name: 'cam-reuse', kind: 'generic' });
    expect(device.body!.created_at).toMatch(NINE_DIGITS);
    assertMatchesSchema('Device', device.body);

    const object = await getJson(`${stack.api}/objects/acme.reuse.ch-9`);
    expect(object.status).toBe(200);
    expect(object.body).toMatchObject({
      id: 'acme.reuse.ch-9',
      object_id: 'ch-9',
      object_domain: 'acme.reuse',
      object_name: 'Entrance camera, channel 1',
      object_type: 'video_channel',
      device_name: 'cam-reuse',
    });
    assertMatchesSchema('Object', object.body);

    const type = await getJson(`${stack.api}/event-types/acme.reuse/door_open`);
    expect(type.status).toBe(200);
    expect(type.body).toMatchObject({ domain: 'acme.reuse', event_type: 'door_open', display_name: 'Motion detected', display_description: 'Motion was detected in the field of view' });
    assertMatchesSchema('EventType', type.body);
  });

  it('answers 404 JSON for things that do not exist', async () => {
    for (const path of ['/devices/nope', '/objects/nope.nothing', '/event-types/nope/nothing', '/dynamic-events/6f1c1f7e-8a4e-4c1e-9d2a-1b2c3d4e5f60', '/dynamic-events/not-a-uuid']) {
      const res = await getJson(`${stack.api}${path}`);
      expect(res.status, path).toBe(404);
      expect(typeof res.body?.error, path).toBe('string');
    }
    const unknown = await getJson(`${stack.baseUrl}/api/other/dh/dynamic-events`);
    expect(unknown.status).toBe(404);
    const wrongMethod = await fetch(url, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toHaveProperty('error');
  });

  it('keeps __proto__, constructor and prototype keys as plain data', async () => {
    const body = exampleEvent({ device: 'cam-hostile' });
    const raw = JSON.stringify(body).replace('"zone":"lobby"', '"__proto__":"p","constructor":"c","prototype":"x","zone":"lobby"');
    const res = await postJson(url, raw);
    expect(res.status).toBe(200);
    expect(res.body!.event_additional_properties).toEqual(JSON.parse('{"__proto__":"p","constructor":"c","prototype":"x","zone":"lobby","confidence":"0.93"}'));
    const stored = await getJson(`${stack.api}/dynamic-events/${String(res.body!.id)}`);
    expect(stored.body!.event_additional_properties).toEqual(res.body!.event_additional_properties);
  });
});

describe('images', () => {
  for (const [name, sample] of Object.entries(samples)) {
    it(`stores a ${name} from base64_image and serves the exact bytes`, async () => {
      const body = exampleEvent({ device: `cam-img-${name}` });
      const encoded = sample.bytes.toString('base64');
      (body.event.event_data.event_additional_properties as Record<string, string>).base64_image =
        name === 'png' ? `data:${sample.contentType};base64,${encoded}` : encoded;
      const res = await postJson(url, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const images = res.body!.images as string[];
      expect(images).toHaveLength(2);
      expect(images[0]).toBe('https://cdn.example.com/snapshots/1.jpg');
      expect(images[1]).toMatch(new RegExp(`^${stack.baseUrl}/api/platform/dh/media/[0-9a-f]{64}\\.${sample.ext}$`));
      expect(res.body!.event_additional_properties).toEqual({ zone: 'lobby', confidence: '0.93' });

      const image = await fetch(images[1]!);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe(sample.contentType);
      expect(image.headers.get('x-content-type-options')).toBe('nosniff');
      expect(image.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(image.headers.get('cache-control')).toMatch(/max-age=\d{6,}/);
      expect(Buffer.from(await image.arrayBuffer()).equals(sample.bytes)).toBe(true);
    });
  }
});

describe('bad input: a clear error and nothing stored', () => {
  const IMAGE = 'event.event_data.event_additional_properties.base64_image';
  // The field each 400 names in its body (ValidationError), beside the message that names it too.
  const cases: [string, (b: ReturnType<typeof exampleEvent>) => unknown, number, RegExp, string][] = [
    ['source missing', (b) => ({ event: b.event }), 400, /source/, 'source'],
    ['event missing', (b) => ({ source: b.source }), 400, /event/, 'event'],
    ['empty device_name', (b) => ({ ...b, source: { ...b.source, device_name: '' } }), 400, /source\.device_name/, 'source.device_name'],
    ['object_type not a string', (b) => ({ ...b, source: { ...b.source, object_type: 7 } }), 400, /source\.object_type/, 'source.object_type'],
    ['display_name missing', (b) => ({ ...b, event: { ...b.event, event_type: { event_type: 'x', display_description: 'd' } } }), 400, /display_name/, 'event.event_type.display_name'],
    ['object_id contains the domain', (b) => ({ ...b, source: { ...b.source, object_id: 'acme.camera.video.channel-1' } }), 400, /object_id/, 'source.object_id'],
    ['property not a string', (b) => ({ ...b, event: { ...b.event, event_data: { event_additional_properties: { n: 1 } } } }), 400, /event_additional_properties/, 'event.event_data.event_additional_properties.n'],
    ['images not strings', (b) => ({ ...b, event: { ...b.event, event_data: { images: [1] } } }), 400, /images/, 'event.event_data.images'],
    ['device_name too long', (b) => ({ ...b, source: { ...b.source, device_name: 'x'.repeat(256) } }), 400, /source\.device_name/, 'source.device_name'],
    ['device_name misspelt', (b) => ({ ...b, source: { ...b.source, device_name: undefined, devcie_name: 'cam' } }), 400, /^source\.devcie_name is not a known field$/, 'source.devcie_name'],
    ['base64 with a bad character', (b) => ({ ...b, event: { ...b.event, event_data: { event_additional_properties: { base64_image: 'iVBO*w0KGgo=' } } } }), 400, /base64_image/, IMAGE],
    ['SVG image', (b) => ({ ...b, event: { ...b.event, event_data: { event_additional_properties: { base64_image: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64') } } } }), 400, /base64_image/, IMAGE],
  ];
  for (const [name, build, status, message, field] of cases) {
    it(`${name} → ${status}`, async () => {
      const device = `cam-bad-${name.replace(/\W+/g, '-')}`;
      const res = await postJson(url, build(exampleEvent({ device })));
      expect(res.status).toBe(status);
      assertMatchesSchema('ValidationError', res.body);
      expect(res.body!.error).toMatch(message);
      expect(res.body).toMatchObject({ field, rule: expect.any(String) });
      const stored = await getJson(`${stack.api}/devices/${device}`);
      expect(stored.status).toBe(404);
    });
  }

  const withImage = (device: string, bytes: Buffer) => {
    const body = exampleEvent({ device });
    (body.event.event_data.event_additional_properties as Record<string, string>).base64_image = bytes.toString('base64');
    return body;
  };
  const imageCases: [string, Buffer, number][] = [
    ['image above MAX_IMAGE_BYTES', largePng(10 * 1024 * 1024 + 1).bytes, 413],
    ['pixel bomb', pngBomb, 400],
    ['BMP', bmp, 400],
  ];
  for (const [name, bytes, status] of imageCases) {
    it(`${name} → ${status}, no image, no device`, async () => {
      const device = `cam-img-bad-${name.replace(/\W+/g, '-')}`;
      const res = await postJson(url, withImage(device, bytes));
      expect(res.status).toBe(status);
      expect(res.body!.error).toMatch(/base64_image/);
      expect((await getJson(`${stack.api}/devices/${device}`)).status).toBe(404);
    });
  }

  it('rejects invalid JSON, non-objects, wrong content types and huge bodies', async () => {
    expect((await postJson(url, '{"source": ')).status).toBe(400);
    expect((await postJson(url, '[1,2]')).status).toBe(400);
    const deep = '{"a":'.repeat(100) + '1' + '}'.repeat(100);
    expect((await postJson(url, deep)).status).toBe(400);
    const text = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(exampleEvent()) });
    expect(text.status).toBe(415);
    expect(await text.json()).toHaveProperty('error');
    const charset = await postJson(url, exampleEvent({ device: 'cam-charset' }), { 'content-type': 'application/json; charset=utf-8' });
    expect(charset.status).toBe(200);
    const huge = await postJson(url, JSON.stringify({ ...exampleEvent(), padding: 'x'.repeat(17 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    // The server keeps serving after all of that.
    expect((await postJson(url, exampleEvent({ device: 'cam-after-bad' }))).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('100 concurrent first sightings create one device, object and type and 100 events', async () => {
    const body = exampleEvent({ device: 'cam-race', objectId: 'race-1', domain: 'acme.race', eventType: 'race_event' });
    const results = await Promise.all(Array.from({ length: 100 }, () => postJson(url, body)));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(new Set(results.map((r) => r.body!.id)).size).toBe(100);
    expect((await getJson(`${stack.api}/devices/cam-race`)).status).toBe(200);
    expect((await getJson(`${stack.api}/objects/acme.race.race-1`)).status).toBe(200);
  });
});

describe('operations endpoints', () => {
  it('serves healthz and readyz, and each service its metrics on its own port', async () => {
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
    for (const url of Object.values(stack.metrics)) {
      const metrics = await fetch(url);
      expect(metrics.status, url).toBe(200);
      expect(await metrics.text(), url).toContain('process_cpu_seconds_total');
    }
  });
});
