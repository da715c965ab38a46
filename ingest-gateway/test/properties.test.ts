import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, validBody, type TestGateway } from './helpers.js';

let gw: TestGateway;
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

/** Nothing reached Object.prototype in this process (the app runs in it). */
function assertNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(probe.isAdmin).toBeUndefined();
}

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'polluted', 'isAdmin'];
const propertyKey = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ minLength: 0, maxLength: 20, unit: 'grapheme' }));

describe('hostile property keys', () => {
  it('round trip as plain data and never touch a prototype', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(propertyKey, fc.string({ maxLength: 30 })), { selector: ([k]) => k, maxLength: 12 }), async (entries) => {
        const sent = entries.filter(([key]) => key !== 'base64_image');
        const body = validBody() as { event: { event_data: Record<string, unknown> } };
        // Object.fromEntries defines own properties, so "__proto__" really is a key in the JSON text.
        body.event.event_data.event_additional_properties = Object.fromEntries(sent);
        const response = await gw.post(JSON.stringify(body));
        expect(response.status).toBe(200);
        const echoed = response.json.event_additional_properties as Record<string, string>;
        expect(Object.getPrototypeOf(echoed)).toBe(Object.prototype);
        expect(Object.entries(echoed)).toEqual(Object.entries(Object.fromEntries(sent)));
        const recorded = gw.registry.recorded.at(-1)!.properties;
        expect(recorded.map((p) => [p.key, p.value])).toEqual(Object.entries(Object.fromEntries(sent)));
        assertNoPollution();
      }),
      { numRuns: 150 },
    );
  });

  it('a "__proto__" object payload is rejected as a non-string value, not merged', async () => {
    const text = JSON.stringify(validBody()).replace(
      '"event_additional_properties":{',
      '"event_additional_properties":{"__proto__":{"polluted":"yes"},',
    );
    const response = await gw.post(text);
    expect(response).toMatchObject({ status: 400, json: { error: 'event.event_data.event_additional_properties.__proto__ must be a string' } });
    const topLevel = await gw.post(`{"__proto__":{"polluted":"yes"},${JSON.stringify(validBody()).slice(1)}`);
    expect(topLevel.status).toBe(200);
    assertNoPollution();
  });
});

const SOURCE_FIELDS = ['device_name', 'object_id', 'object_domain', 'object_name', 'object_type'] as const;
const anyText = fc.oneof(
  fc.string({ maxLength: 300, unit: 'binary' }),
  fc.string({ maxLength: 300, unit: 'grapheme' }),
  fc.constantFrom('', ' ', '\u00a0', '\u2028', '\ufeff', '\u200b', '\u3164', '\u200b\u200dx', 'a\u001bb', 'a\r\nb', 'ab\u202ecd', 'a\u2066b', 'a.b', 'é', '😀'.repeat(255), '😀'.repeat(256), 'x'.repeat(255)),
);

/** Identities must be in Unicode NFC; the other fields are stored as sent. */
const IDENTITY_FIELDS = new Set(['device_name', 'object_id', 'object_domain']);

/** Characters that show nothing; a name of only these (and whitespace) is empty. */
const INVISIBLE = new Set([0xad, 0x34f, 0x115f, 0x1160, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xfeff, 0xffa0]);
const blank = (value: string) => [...value].every((c) => c.trim() === '' || INVISIBLE.has(c.codePointAt(0)!));
/** Controls and bidirectional formatting marks, refused in identities. */
const controlOrBidi = (value: string) =>
  [...value].some((c) => {
    const code = c.codePointAt(0)!;
    return code <= 0x1f || (code >= 0x7f && code <= 0x9f) || [0x61c, 0x200e, 0x200f].includes(code) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
  });

/** The outcome the rules predict for a source (lengths in code points, blank is empty, no U+0000, identities NFC without controls). */
function expectedStatus(source: Record<string, string>): number {
  for (const field of SOURCE_FIELDS) {
    const value = source[field]!;
    if (blank(value) || value.includes('\u0000') || [...value].length > 255) return 400;
    if (IDENTITY_FIELDS.has(field) && (controlOrBidi(value) || value.normalize('NFC') !== value)) return 400;
  }
  return source.object_id!.startsWith(`${source.object_domain}.`) ? 400 : 200;
}

describe('random strings and unicode in every source field', () => {
  it('answer exactly what the rules predict, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record(Object.fromEntries(SOURCE_FIELDS.map((f) => [f, anyText])) as Record<(typeof SOURCE_FIELDS)[number], fc.Arbitrary<string>>), async (source) => {
        const body = { ...validBody(), source };
        const response = await gw.post(body);
        expect(response.status).toBe(expectedStatus(source));
        if (response.status === 200) {
          expect(gw.registry.recorded.at(-1)!.source).toEqual({
            deviceName: source.device_name,
            objectId: source.object_id,
            objectDomain: source.object_domain,
            objectName: source.object_name,
            objectType: source.object_type,
          });
          expect(response.json.rels).toEqual([`/objects/${source.object_domain}.${source.object_id}`]);
        } else {
          expect(response.json.error).toMatch(/^source\.(device_name|object_id|object_domain|object_name|object_type) /);
        }
      }),
      { numRuns: 150 },
    );
  });
});

const PATHS: string[][] = [
  [],
  ['source'],
  ['event'],
  ['event', 'event_type'],
  ['event', 'event_data'],
  ['event', 'event_data', 'images'],
  ['event', 'event_data', 'video_clips'],
  ['event', 'event_data', 'event_additional_properties'],
  ['event', 'event_data', 'event_additional_properties', '__proto__'],
  ['event', 'event_data', 'event_additional_properties', 'base64_image'],
  ['source', 'device_name'],
  ['source', 'constructor'],
  ['event', 'event_type', 'display_description'],
];

/** Replaces the value at `path` (the empty path replaces the whole body). */
function replaceAt(path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const body = validBody() as Record<string, unknown>;
  let node = body;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  Object.defineProperty(node, path.at(-1)!, { value, enumerable: true, writable: true, configurable: true });
  return body;
}

describe('random JSON values anywhere', () => {
  it('answer 200 or a 400 {"error"}, never 500, and pollute nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), fc.jsonValue({ maxDepth: 4 }), async (path, value) => {
        const response = await gw.post(JSON.stringify(replaceAt(path, value)));
        expect([200, 400]).toContain(response.status);
        if (response.status === 400) {
          expect(Object.keys(response.json)).toEqual(['error', 'field', 'rule']);
          expect(typeof response.json.error).toBe('string');
        }
        assertNoPollution();
      }),
      { numRuns: 300 },
    );
  });

  it('random text bodies answer 400 or 200, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200, unit: 'binary' }), fc.json({ maxDepth: 5 })), async (text) => {
        const response = await gw.post(text);
        expect([200, 400]).toContain(response.status);
      }),
      { numRuns: 200 },
    );
  });
});
