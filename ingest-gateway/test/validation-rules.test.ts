/**
 * The validator as the route uses it: what it hands on for a good body, and for a bad one the field
 * and rule it reports (the rule is the metrics label; field and rule reach callers of the API).
 */
import { describe, expect, it } from 'vitest';
import { AppError, createOccurredAtRule } from '@dynamic-events/proto';
import { createEventValidator } from '../src/ingest/validation.js';
import { mutate, validBody } from './helpers.js';

const validator = createEventValidator(createOccurredAtRule(300));

function refusal(body: unknown): { code: string; field: unknown; rule: unknown; message: string } {
  try {
    validator.validate(body as Record<string, unknown>);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, field: err.details.field, rule: err.details.rule, message: err.message };
  }
  throw new Error('the body was accepted');
}

const long = (n: number) => 'x'.repeat(n);
const PROPS = 'event.event_data.event_additional_properties';

/** [case, body, field, rule]. */
const RULES: Array<[string, unknown, string, string]> = [
  ['a missing source', mutate((b) => delete b.source), 'source', 'required'],
  ['an unknown field in source', mutate((b) => (b.source.device = 'x')), 'source.device', 'unknown-field'],
  ['a body that is not an object', [], 'body', 'type'],
  ['a number in the images', mutate((b) => (b.event.event_data.images = ['u', 3])), 'event.event_data.images', 'type'],
  ['a number as device_name', mutate((b) => (b.source.device_name = 3)), 'source.device_name', 'type'],
  ['NUL in a property key', mutate((b) => (b.event.event_data.event_additional_properties['a\u0000'] = 'v')), PROPS, 'characters'],
  ['NUL in object_name', mutate((b) => (b.source.object_name = 'a\u0000')), 'source.object_name', 'characters'],
  ['a blank event_type', mutate((b) => (b.event.event_type.event_type = ' ')), 'event.event_type.event_type', 'not-empty'],
  ['a long property key', mutate((b) => (b.event.event_data.event_additional_properties[long(256)] = 'v')), PROPS, 'key-max-length'],
  ['a long object_type', mutate((b) => (b.source.object_type = long(256))), 'source.object_type', 'max-length'],
  ['64 images and a base64_image (its stored URL would be the 65th)', mutate((b) => {
    b.event.event_data.images = Array.from({ length: 64 }, () => 'u');
    b.event.event_data.event_additional_properties.base64_image = 'QUJD';
  }), 'event.event_data.images', 'max-items'],
  ['65 video clips', mutate((b) => (b.event.event_data.video_clips = Array.from({ length: 65 }, () => 'u'))), 'event.event_data.video_clips', 'max-items'],
  ['257 properties', mutate((b) => (b.event.event_data.event_additional_properties = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v'])))), PROPS, 'max-properties'],
  ['an object_id starting with the domain', mutate((b) => (b.source.object_id = `${b.source.object_domain}.1`)), 'source.object_id', 'contains-domain'],
];

describe('EventValidator refusals', () => {
  it.each(RULES)('%s: names the field and the rule', (_name, body, field, rule) => {
    expect(refusal(body)).toMatchObject({ code: 'INVALID_ARGUMENT', field, rule });
  });

  it('names a video clip by its index, as the caller wrote it', () => {
    const body = mutate((b) => (b.event.event_data.video_clips = ['u', long(2049)]));
    expect(refusal(body)).toMatchObject({ field: 'event.event_data.video_clips[1]', message: 'event.event_data.video_clips[1] must be at most 2048 characters' });
  });

  it('counts a base64_image\'s stored URL among the 64 images: 63 sent beside it, 64 without', () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://x.example/${i}.jpg`);
    const withImage = (n: number) =>
      mutate((b) => {
        b.event.event_data.images = urls(n);
        b.event.event_data.event_additional_properties.base64_image = 'QUJD';
      });
    expect(refusal(withImage(64))).toEqual({
      code: 'INVALID_ARGUMENT',
      field: 'event.event_data.images',
      rule: 'max-items',
      message: 'event.event_data.images must have at most 63 items when base64_image is sent (its stored URL is the 64th)',
    });
    expect(validator.validate(withImage(63)).input.images).toHaveLength(63);
    expect(validator.validate(mutate((b) => (b.event.event_data.images = urls(64)))).input.images).toHaveLength(64);
  });

  it('calls a body that is not an object "body"', () => {
    expect(refusal('text')).toMatchObject({ field: 'body', message: 'body must be an object' });
  });

  it('never lets an inherited field satisfy a required one', () => {
    const { source, event } = validBody();
    const inherited = Object.assign(Object.create({ source }) as Record<string, unknown>, { event });
    expect(refusal(inherited)).toMatchObject({ field: 'source', rule: 'required', message: 'source is required' });
  });
});

describe('EventValidator result', () => {
  it('hands on every field, the properties as pairs without the image, and the image apart', () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = 'QUJD'));
    expect(validator.validate(body)).toEqual({
      input: {
        source: { deviceName: 'camera-01', objectId: 'channel-1', objectDomain: 'acme.camera.motion', objectName: 'Front door', objectType: 'video_channel' },
        eventType: { eventType: 'motion', displayName: 'Motion', displayDescription: 'Motion detected' },
        properties: [
          { key: 'zone', value: 'north' },
          { key: 'confidence', value: '0.93' },
        ],
        images: ['https://example.test/a.jpg'],
        videoClips: ['https://example.test/a.mp4'],
      },
      base64Image: 'QUJD',
    });
  });

  it('hands on empty lists and no image when event_data is left out', () => {
    const { input, base64Image } = validator.validate(mutate((b) => delete b.event.event_data));
    expect(input).toMatchObject({ properties: [], images: [], videoClips: [] });
    expect(base64Image).toBeUndefined();
  });
});
