import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@dynamic-events/proto';
import { DYNAMIC_EVENT_SCHEMA as schema } from '../src/ingest/event-schema.js';
import { mutate, startGateway, validBody, type TestGateway } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const long = (n: number) => 'x'.repeat(n);
const props = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));

/** [case, body, status, exact error message]. */
const CASES: Array<[string, unknown, number, string]> = [
  ['body is an array', [validBody()], 400, 'body must be a JSON object'],
  ['body is a string', '"hello"', 400, 'body must be a JSON object'],
  ['body is a number', '42', 400, 'body must be a JSON object'],
  ['body is null', 'null', 400, 'body must be a JSON object'],
  ['body is empty', '', 400, 'body is not valid JSON'],
  ['body is truncated JSON', '{"source": {', 400, 'body is not valid JSON'],
  ['body has a trailing comma', '{"a": 1,}', 400, 'body is not valid JSON'],
  ['body nested too deeply', `{"x": ${'['.repeat(40)}${']'.repeat(40)}}`, 400, 'body is nested too deeply (max 32 levels)'],
  ['body is empty object', {}, 400, 'source is required'],
  ['source missing', mutate((b) => delete b.source), 400, 'source is required'],
  ['event missing', mutate((b) => delete b.event), 400, 'event is required'],
  ['source is null', mutate((b) => (b.source = null)), 400, 'source must be an object'],
  ['source is an array', mutate((b) => (b.source = [])), 400, 'source must be an object'],
  ['event is a string', mutate((b) => (b.event = 'motion')), 400, 'event must be an object'],
  ...(['device_name', 'object_id', 'object_domain', 'object_name', 'object_type'] as const).flatMap((f): Array<[string, unknown, number, string]> => [
    [`source.${f} missing`, mutate((b) => delete b.source[f]), 400, `source.${f} is required`],
    [`source.${f} null`, mutate((b) => (b.source[f] = null)), 400, `source.${f} must be a string`],
    [`source.${f} number`, mutate((b) => (b.source[f] = 7)), 400, `source.${f} must be a string`],
    [`source.${f} empty`, mutate((b) => (b.source[f] = '')), 400, `source.${f} must not be empty`],
    [`source.${f} whitespace`, mutate((b) => (b.source[f] = ' \t\n\u00a0')), 400, `source.${f} must not be empty`],
    [`source.${f} too long`, mutate((b) => (b.source[f] = long(256))), 400, `source.${f} must be at most 255 characters`],
  ]),
  ['unknown field in source', mutate((b) => (b.source.device = 'x')), 400, 'source.device is not a known field'],
  ['__proto__ in source', '{"source":{"__proto__":{"x":1},"device_name":"d","object_id":"o","object_domain":"x","object_name":"n","object_type":"t"},"event":{"event_type":{"event_type":"e","display_name":"d","display_description":"d"}}}', 400, 'source.__proto__ is not a known field'],
  ['event.event_type missing', mutate((b) => delete b.event.event_type), 400, 'event.event_type is required'],
  ['event.event_type a string', mutate((b) => (b.event.event_type = 'motion')), 400, 'event.event_type must be an object'],
  ...(['event_type', 'display_name', 'display_description'] as const).flatMap((f): Array<[string, unknown, number, string]> => [
    [`event.event_type.${f} missing`, mutate((b) => delete b.event.event_type[f]), 400, `event.event_type.${f} is required`],
    [`event.event_type.${f} boolean`, mutate((b) => (b.event.event_type[f] = true)), 400, `event.event_type.${f} must be a string`],
    [`event.event_type.${f} empty`, mutate((b) => (b.event.event_type[f] = '   ')), 400, `event.event_type.${f} must not be empty`],
  ]),
  ['event_type too long', mutate((b) => (b.event.event_type.event_type = long(256))), 400, 'event.event_type.event_type must be at most 255 characters'],
  ['display_name too long', mutate((b) => (b.event.event_type.display_name = long(256))), 400, 'event.event_type.display_name must be at most 255 characters'],
  ['display_description too long', mutate((b) => (b.event.event_type.display_description = long(1025))), 400, 'event.event_type.display_description must be at most 1024 characters'],
  ['unknown field in event', mutate((b) => (b.event.eventdata = {})), 400, 'event.eventdata is not a known field'],
  ['unknown field in event_type', mutate((b) => (b.event.event_type.name = 'x')), 400, 'event.event_type.name is not a known field'],
  ['unknown field in event_data', mutate((b) => (b.event.event_data.image = 'x')), 400, 'event.event_data.image is not a known field'],
  ['event_data null', mutate((b) => (b.event.event_data = null)), 400, 'event.event_data must be an object'],
  ['event_data an array', mutate((b) => (b.event.event_data = [])), 400, 'event.event_data must be an object'],
  ['properties an array', mutate((b) => (b.event.event_data.event_additional_properties = ['a'])), 400, 'event.event_data.event_additional_properties must be an object'],
  ['property a number', mutate((b) => (b.event.event_data.event_additional_properties.color = 5)), 400, 'event.event_data.event_additional_properties.color must be a string'],
  ['property an object', mutate((b) => (b.event.event_data.event_additional_properties.color = { r: 1 })), 400, 'event.event_data.event_additional_properties.color must be a string'],
  ['property null', mutate((b) => (b.event.event_data.event_additional_properties['a/b~c'] = null)), 400, 'event.event_data.event_additional_properties.a/b~c must be a string'],
  ['base64_image not a string', mutate((b) => (b.event.event_data.event_additional_properties.base64_image = 1)), 400, 'event.event_data.event_additional_properties.base64_image must be a string'],
  ['property value too long', mutate((b) => (b.event.event_data.event_additional_properties.note = long(16385))), 400, 'event.event_data.event_additional_properties.note must be at most 16384 characters'],
  ['NUL in device_name', mutate((b) => (b.source.device_name = 'cam\u00001')), 400, 'source.device_name must not contain NUL characters (U+0000)'],
  ['NUL in description', mutate((b) => (b.event.event_type.display_description = 'a\u0000')), 400, 'event.event_type.display_description must not contain NUL characters (U+0000)'],
  ['NUL in a property value', mutate((b) => (b.event.event_data.event_additional_properties.zone = '\u0000')), 400, 'event.event_data.event_additional_properties.zone must not contain NUL characters (U+0000)'],
  ['NUL in a property key', mutate((b) => (b.event.event_data.event_additional_properties['a\u0000b'] = 'v')), 400, 'event.event_data.event_additional_properties keys must not contain NUL characters (U+0000)'],
  ['NUL in an image URL', mutate((b) => (b.event.event_data.images = ['https://x/\u0000'])), 400, 'event.event_data.images[0] must not contain NUL characters (U+0000)'],
  ['property key too long', mutate((b) => (b.event.event_data.event_additional_properties[long(256)] = 'v')), 400, 'event.event_data.event_additional_properties keys must be at most 255 characters'],
  ['too many properties', mutate((b) => (b.event.event_data.event_additional_properties = props(257))), 400, 'event.event_data.event_additional_properties must have at most 256 properties'],
  ['images a string', mutate((b) => (b.event.event_data.images = 'https://x')), 400, 'event.event_data.images must be an array of strings'],
  ['images with a number', mutate((b) => (b.event.event_data.images = ['https://x', 3])), 400, 'event.event_data.images must be an array of strings'],
  ['video_clips with null', mutate((b) => (b.event.event_data.video_clips = [null])), 400, 'event.event_data.video_clips must be an array of strings'],
  ['too many images', mutate((b) => (b.event.event_data.images = Array.from({ length: 65 }, () => 'u'))), 400, 'event.event_data.images must have at most 64 items'],
  ['too many video_clips', mutate((b) => (b.event.event_data.video_clips = Array.from({ length: 65 }, () => 'u'))), 400, 'event.event_data.video_clips must have at most 64 items'],
  ['image URL too long', mutate((b) => (b.event.event_data.images = ['u', long(2049)])), 400, 'event.event_data.images[1] must be at most 2048 characters'],
  ['object_id contains the domain', mutate((b) => (b.source.object_id = 'acme.camera.motion.channel-1')), 400, 'source.object_id must not contain the domain (it must not start with "acme.camera.motion.")'],
];

describe('POST dynamic-events: every validation rule', () => {
  it.each(CASES)('%s', async (_name, body, status, message) => {
    const response = await gw.post(body);
    expect(response.status).toBe(status);
    // Every 400 names its field and rule apart too; the message names the field first.
    expect(response.json).toEqual({ error: message, field: expect.any(String), rule: expect.any(String) });
    expect(message.startsWith(String(response.json.field))).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Rejected input creates nothing: neither service was called.
    expect(gw.registry.calls).toEqual([]);
    expect(gw.media.calls).toEqual([]);
  });

  it('counts validation failures by rule in /metrics', async () => {
    await gw.post(mutate((b) => (b.source.device_name = '')));
    const text = await (await fetch(gw.metricsUrl)).text();
    expect(text).toMatch(/http_validation_failures_total\{rule="not-empty"\} [1-9]/);
    expect(text).toMatch(/http_validation_failures_total\{rule="required"\} [1-9]/);
  });
});

describe('POST dynamic-events: accepted input', () => {
  it('accepts the limits exactly and values that are only padded', async () => {
    const body = mutate((b) => {
      b.source.device_name = ` ${long(253)} `;
      b.event.event_type.display_description = long(1024);
      b.event.event_data.event_additional_properties = { ...props(255), [long(255)]: long(16384) };
      b.event.event_data.images = Array.from({ length: 64 }, () => long(2048));
      b.unknown_top_level = { tolerated: true };
    });
    const before = gw.registry.recorded.length;
    const response = await gw.post(body);
    expect(response.status).toBe(200);
    const recorded = gw.registry.recorded[before]!;
    expect(recorded.source.deviceName).toBe(` ${long(253)} `);
    expect(recorded.properties).toHaveLength(256);
  });

  it('accepts an object_id that merely contains the domain later or without the dot', async () => {
    for (const objectId of ['acme.camera.motion', 'x.acme.camera.motion.1', 'acme.camera.motionx']) {
      const response = await gw.post(mutate((b) => (b.source.object_id = objectId)));
      expect(response.status, objectId).toBe(200);
    }
  });

  it('treats event_data as optional and answers empty arrays and objects', async () => {
    const response = await gw.post(mutate((b) => delete b.event.event_data));
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ images: [], video_clips: [], event_additional_properties: {} });
  });

  it('counts 32 levels as allowed and 33 as too deep', async () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    // The top-level object is level 1, `extra` holds the rest.
    const ok = await gw.post(`{"extra": ${nested(31)}, ${JSON.stringify(validBody()).slice(1)}`);
    expect(ok.status).toBe(200);
    const deep = await gw.post(`{"extra": ${nested(32)}, ${JSON.stringify(validBody()).slice(1)}`);
    expect(deep).toMatchObject({ status: 400, json: { error: 'body is nested too deeply (max 32 levels)' } });
  });

  it('does not count brackets inside strings as nesting', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.brackets = `${'['.repeat(100)}\\"{{{`));
    expect((await gw.post(body)).status).toBe(200);
  });
});

describe('schema limits', () => {
  it('match the shared LIMITS', () => {
    interface Limited {
      maxLength?: number;
      maxItems?: number;
      maxProperties?: number;
      properties: Record<string, Limited>;
      propertyNames: Limited;
      additionalProperties: Limited;
      items: Limited;
      $defs: Record<string, Limited>;
    }
    const s = schema as unknown as Limited;
    const event = s.properties.event!.properties;
    const properties = event.event_data!.properties.event_additional_properties!;
    expect(s.$defs.name!.maxLength).toBe(LIMITS.nameMaxLength);
    expect(event.event_type!.properties.display_description!.maxLength).toBe(LIMITS.descriptionMaxLength);
    expect(properties.maxProperties).toBe(LIMITS.propertiesMaxCount);
    expect(properties.propertyNames.maxLength).toBe(LIMITS.propertyKeyMaxLength);
    expect(properties.additionalProperties.maxLength).toBe(LIMITS.propertyValueMaxLength);
    expect(s.$defs.urls!.maxItems).toBe(LIMITS.urlsMaxCount);
    expect(s.$defs.urls!.items.maxLength).toBe(LIMITS.urlMaxLength);
  });
});
