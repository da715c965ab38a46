/**
 * Input rules: the same limits as the gateway (LIMITS), checked by the registry because other
 * platform services call it directly. Unit tests of the rules plus the table over real gRPC.
 */
import { AppError, createOccurredAtRule, fromServiceError, LIMITS, registry } from '@dynamic-events/proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateEvent, withinLength } from '../src/ingest/validate-event.js';
import type { EventDraft } from '../src/model.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, sampleEvent, useFreshRegistry, type TestRegistry } from './helpers.js';

function draftOf(event: registry.NewEvent): EventDraft {
  return {
    source: event.source,
    eventType: event.eventType,
    properties: event.additionalProperties,
    images: event.images,
    videoClips: event.videoClips,
    idempotency: event.idempotencyKey === '' && event.requestHash === '' ? undefined : { scope: '', key: event.idempotencyKey, requestHash: event.requestHash },
    tokenId: undefined,
    occurredAt: event.occurredAt,
  };
}

const occurredAt = createOccurredAtRule(300);

const long = (n: number) => 'x'.repeat(n);
const props = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));

/** [name, event, expected field, expected rule] */
const INVALID: Array<[string, registry.NewEvent, string, string]> = [
  ['missing source', { ...sampleEvent(), source: undefined }, 'source', 'required'],
  ['empty device_name', sampleEvent({ source: { deviceName: '' } }), 'source.device_name', 'not-empty'],
  ['whitespace object_id', sampleEvent({ source: { objectId: ' \t\n' } }), 'source.object_id', 'not-empty'],
  ['empty object_domain', sampleEvent({ source: { objectDomain: '' } }), 'source.object_domain', 'not-empty'],
  ['empty object_name', sampleEvent({ source: { objectName: '' } }), 'source.object_name', 'not-empty'],
  ['empty object_type', sampleEvent({ source: { objectType: '\u3000' } }), 'source.object_type', 'not-empty'],
  ['long device_name', sampleEvent({ source: { deviceName: long(256) } }), 'source.device_name', 'max-length'],
  ['long object_type', sampleEvent({ source: { objectType: long(256) } }), 'source.object_type', 'max-length'],
  ['object_id contains domain', sampleEvent({ source: { objectDomain: 'acme.cam', objectId: 'acme.cam.7' } }), 'source.object_id', 'contains-domain'],
  ['NUL in device_name', sampleEvent({ source: { deviceName: 'a\u0000b' } }), 'source.device_name', 'characters'],
  ['missing event type', { ...sampleEvent(), eventType: undefined }, 'event.event_type', 'required'],
  ['empty event_type', sampleEvent({ eventType: { eventType: '' } }), 'event.event_type.event_type', 'not-empty'],
  ['empty display_name', sampleEvent({ eventType: { displayName: ' ' } }), 'event.event_type.display_name', 'not-empty'],
  ['empty display_description', sampleEvent({ eventType: { displayDescription: '' } }), 'event.event_type.display_description', 'not-empty'],
  ['long display_description', sampleEvent({ eventType: { displayDescription: long(1025) } }), 'event.event_type.display_description', 'max-length'],
  ['too many properties', sampleEvent({ additionalProperties: props(257) }), 'event.event_data.event_additional_properties', 'max-properties'],
  ['long property key', sampleEvent({ additionalProperties: [{ key: long(256), value: 'v' }] }), 'event.event_data.event_additional_properties', 'key-max-length'],
  ['long property value', sampleEvent({ additionalProperties: [{ key: 'k', value: long(16_385) }] }), 'event.event_data.event_additional_properties.k', 'max-length'],
  ['duplicate property key', sampleEvent({ additionalProperties: [{ key: 'k', value: '1' }, { key: 'k', value: '2' }] }), 'event.event_data.event_additional_properties', 'duplicate'],
  ['base64_image property', sampleEvent({ additionalProperties: [{ key: 'base64_image', value: 'AAAA' }] }), 'event.event_data.event_additional_properties', 'reserved'],
  ['NUL in property value', sampleEvent({ additionalProperties: [{ key: 'k', value: '\u0000' }] }), 'event.event_data.event_additional_properties.k', 'characters'],
  ['NUL in property key', sampleEvent({ additionalProperties: [{ key: 'a\u0000', value: 'v' }] }), 'event.event_data.event_additional_properties', 'characters'],
  // At most 64 image URLs in a stored event, over gRPC as over HTTP (where a stored base64_image's URL is one of them).
  ['too many images', sampleEvent({ images: Array.from({ length: 65 }, (_, i) => `https://x/${i}`) }), 'event.event_data.images', 'max-items'],
  ['long image url', sampleEvent({ images: ['https://x/a', `https://x/${long(2048)}`] }), 'event.event_data.images[1]', 'max-length'],
  ['NFD device_name', sampleEvent({ source: { deviceName: 'came\u0301ra' } }), 'source.device_name', 'nfc'],
  ['NFD object_id', sampleEvent({ source: { objectId: 'came\u0301ra' } }), 'source.object_id', 'nfc'],
  ['NFD object_domain', sampleEvent({ source: { objectDomain: 'acme.came\u0301ra' } }), 'source.object_domain', 'nfc'],
  ['NFD event_type', sampleEvent({ eventType: { eventType: 'mouvement-de\u0301tecte\u0301' } }), 'event.event_type.event_type', 'nfc'],
  ['too many video clips', sampleEvent({ videoClips: Array.from({ length: 65 }, (_, i) => `https://x/${i}`) }), 'event.event_data.video_clips', 'max-items'],
];

/**
 * Lone surrogates cannot cross the gRPC hop (the encoder turns them into U+FFFD; invalid UTF-8 on
 * the wire is refused before decoding, see strict-utf8 below), so they are checked in the domain.
 */
const LONE_SURROGATES: Array<[string, registry.NewEvent, string]> = [
  ['high surrogate in object_id', sampleEvent({ source: { objectId: 'o\ud800' } }), 'source.object_id'],
  ['low surrogate in device_name', sampleEvent({ source: { deviceName: '\udc00cam' } }), 'source.device_name'],
  ['reversed pair in object_domain', sampleEvent({ source: { objectDomain: 'a\udc00\ud800' } }), 'source.object_domain'],
  ['surrogate in event_type', sampleEvent({ eventType: { eventType: 'motion\udbff' } }), 'event.event_type.event_type'],
  ['surrogate in property key', sampleEvent({ additionalProperties: [{ key: '\ud800', value: 'v' }] }), 'event.event_data.event_additional_properties'],
  ['surrogate in property value', sampleEvent({ additionalProperties: [{ key: 'k', value: 'x\udfff' }] }), 'event.event_data.event_additional_properties.k'],
  ['surrogate in an image URL', sampleEvent({ images: ['https://x/\ud800'] }), 'event.event_data.images[0]'],
];

describe('validateEvent', () => {
  it.each(LONE_SURROGATES)('%s → %s characters, with the message the gateway uses', (_name, event, field) => {
    expect(() => validateEvent(draftOf(event), occurredAt)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field, rule: 'characters' }, message: expect.stringContaining('lone surrogates') }),
    );
  });

  it('refuses a decomposed identity with the message the gateway uses, and accepts it composed', () => {
    const nfd = sampleEvent({ source: { deviceName: 'came\u0301ra' } });
    expect(() => validateEvent(draftOf(nfd), occurredAt)).toThrow('source.device_name must be Unicode NFC-normalized');
    expect(validateEvent(draftOf(sampleEvent({ source: { deviceName: 'came\u0301ra'.normalize('NFC') } })), occurredAt).source.deviceName).toBe('caméra');
    expect(() => validateEvent(draftOf(sampleEvent({ source: { objectName: 'came\u0301ra' } })), occurredAt)).not.toThrow();
  });

  it('accepts well-formed pairs and U+FFFD itself', () => {
    expect(() => validateEvent(draftOf(sampleEvent({ source: { objectId: 'o\ud83d\ude00\ufffd' } })), occurredAt)).not.toThrow();
  });

  it.each(INVALID)('%s → %s %s', (_name, event, field, rule) => {
    let thrown: unknown;
    try {
      validateEvent(draftOf(event), occurredAt);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field, rule } });
    expect((thrown as AppError).message).toContain(field);
  });

  it('accepts values exactly at the limits and stores them as sent', () => {
    const event = sampleEvent({
      source: { deviceName: ` ${long(253)} `, objectType: '🚪'.repeat(255) },
      eventType: { displayDescription: long(LIMITS.descriptionMaxLength) },
      additionalProperties: props(LIMITS.propertiesMaxCount),
      images: Array.from({ length: LIMITS.urlsMaxCount }, () => `https://x/${long(2000)}`),
      videoClips: Array.from({ length: LIMITS.urlsMaxCount }, () => 'https://x/c.mp4'),
    });
    const valid = validateEvent(draftOf(event), occurredAt);
    expect(valid.source.deviceName).toBe(` ${long(253)} `);
    expect(valid.properties).toHaveLength(256);
  });

  it('counts characters as code points, like JSON Schema maxLength', () => {
    expect(withinLength('😀'.repeat(255), 255)).toBe(true);
    expect(withinLength('😀'.repeat(256), 255)).toBe(false);
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(40), (s, max) => withinLength(s, max) === [...s].length <= max));
  });

  it('never throws anything but INVALID_ARGUMENT, and never touches a prototype, for arbitrary properties', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', ''), fc.string({ unit: 'grapheme', maxLength: 300 }));
    fc.assert(
      fc.property(fc.array(fc.record({ key, value: fc.string({ maxLength: 50 }) }), { maxLength: 20 }), (properties) => {
        try {
          const valid = validateEvent(draftOf({ ...sampleEvent(), additionalProperties: properties }), occurredAt);
          expect(valid.properties).toEqual(properties);
        } catch (err) {
          expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'event.event_data.event_additional_properties' } });
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      }),
    );
  });

  it('rejects an object_id that starts with "{object_domain}." for any domain, and only then', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''), fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''), (domain, id) => {
        const event = sampleEvent({ source: { objectDomain: domain, objectId: `${domain}.${id}` } });
        expect(() => validateEvent(draftOf(event), occurredAt)).toThrow(expect.objectContaining({ details: { field: 'source.object_id', rule: 'contains-domain' } }));
      }),
    );
  });
});

const up = await postgresAvailable();

describe.skipIf(!up)('INVALID_ARGUMENT over gRPC', () => {
  let t: TestRegistry;
  useFreshRegistry((started) => (t = started));

  it.each(INVALID)('%s → INVALID_ARGUMENT naming %s (%s), nothing stored', async (_name, event, field, rule) => {
    const err = await t.api.recordEvent(event).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field, rule } });
    for (const table of ['devices', 'objects', 'event_types', 'events']) expect(await countRows(t.pool, table, 'true', [])).toBe(0);
  });

  it('refuses invalid UTF-8 in a string field (an encoded lone surrogate) before decoding it, and stores nothing', async () => {
    // A valid request whose device_name bytes are then replaced by the CESU-8 encoding of U+D800.
    const marker = 'MARKER';
    const bytes = Buffer.from(registry.RecordEventRequest.encode({ event: sampleEvent({ source: { deviceName: `${marker}x` } }) }).finish());
    const at = bytes.indexOf(marker);
    Buffer.from([0xed, 0xa0, 0x80, 0x41, 0x42, 0x43]).copy(bytes, at);
    const err = await new Promise<unknown>((resolve) => {
      t.client.makeUnaryRequest(
        '/dynamic_events.registry.v1.RegistryService/RecordEvent',
        (raw: Buffer) => raw,
        (raw: Buffer) => raw,
        bytes,
        (error) => resolve(error),
      );
    });
    expect(fromServiceError(err as Error)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'request holds a string that is not valid UTF-8',
      details: { field: 'request', rule: 'encoding' },
    });
    for (const table of ['devices', 'objects', 'event_types', 'events']) expect(await countRows(t.pool, table, 'true', [])).toBe(0);
  });

  it('rejects a missing event and an oversized batch', async () => {
    await expect(t.api.recordEvent(undefined)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'event', rule: 'required' } });
    const batch = Array.from({ length: LIMITS.batchMaxEvents + 1 }, () => sampleEvent());
    await expect(t.api.recordEvents(batch)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'events', rule: 'max-items' } });
    await expect(t.api.getDevice('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'device_name', rule: 'required' } });
    expect(await countRows(t.pool, 'events', 'true', [])).toBe(0);
  });
});
