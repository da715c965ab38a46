/**
 * A large base64_image decoded from the raw body (image-cut.ts, decodeStrictBase64Bytes) must give
 * exactly what the ordinary path gives: the whole body parsed as text, then decodeStrictBase64.
 * Whenever the lifted value breaks a rule, or the marker lands anywhere else, the ordinary path runs.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeStrictBase64, decodeStrictBase64Bytes } from '../src/ingest/base64.js';
import { CUT_MIN_CHARS, cutImage } from '../src/ingest/image-cut.js';
import { readJsonBody, type JsonBody } from '../src/ingest/json-body.js';
import { validBody } from './helpers.js';

const MAX = 1024 * 1024;
const OPTIONS = { maxBodyBytes: 4 * MAX, maxDepth: 32, maxValues: 4096, maxImageBytes: MAX };
const IMAGE = Buffer.from(Array.from({ length: 100_001 }, (_, i) => (i * 7919) % 256));
const ENCODED = IMAGE.toString('base64'); // 133,336 characters, one '=' of padding
const UNPADDED = IMAGE.subarray(0, 99_999).toString('base64'); // no padding: no trailing-bits check either

/** The ordinary path's verdict for a value: its bytes, or undefined when it refuses it. */
function ordinary(value: string, max = MAX): Buffer | undefined {
  try {
    return decodeStrictBase64(value, max, 'f');
  } catch {
    return undefined;
  }
}

/** A body whose properties hold `image` (raw JSON text of the value, quotes included) at the usual place. */
function bodyWith(image: string, around = (props: string) => props): Buffer {
  const text = JSON.stringify(validBody()).replace('"zone":"north"', around(`"zone":"north","base64_image":${image}`));
  return Buffer.from(text);
}

/** Same bytes, or both refused (undefined): Buffer.equals, since a deep toEqual over 100 KB is slow. */
function same(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

async function read(bytes: Buffer): Promise<JsonBody> {
  const req = Object.assign(Readable.from([bytes]), { headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) } });
  return readJsonBody(req as never, OPTIONS);
}

/** What the route decodes from a read body: the lifted bytes, or the parsed value decoded. */
function decoded(json: JsonBody): Buffer | undefined {
  const value = ((json.body.event as Record<string, Record<string, Record<string, string>>>).event_data!.event_additional_properties!).base64_image!;
  return json.image ?? ordinary(value);
}

describe('decodeStrictBase64Bytes', () => {
  const variants: Array<[string, string]> = [
    ['canonical', ENCODED],
    ['with a data URL prefix', `data:image/png;base64,${ENCODED}`],
    ['a bad character', `${ENCODED.slice(0, 70_000)}*${ENCODED.slice(70_001)}`],
    ['a bad character, no padding', `${UNPADDED.slice(0, 70_000)}*${UNPADDED.slice(70_001)}`],
    ['a space, no padding', `${UNPADDED.slice(0, 100)} ${UNPADDED.slice(101)}`],
    ['URL-safe characters', ENCODED.replace(/\+/g, '-')],
    ['a newline', `${ENCODED.slice(0, 4)}\n${ENCODED.slice(5)}`],
    ['one character short', ENCODED.slice(1)],
    ['padding in the middle of a later piece', `${ENCODED.slice(0, 80_000)}====${ENCODED.slice(80_004)}`],
    ['non-canonical trailing bits', `${ENCODED.slice(0, -2)}R=`],
    ['a backslash', `${ENCODED.slice(0, 100)}\\${ENCODED.slice(101)}`],
    ['non-ASCII (as its UTF-8 bytes)', `${ENCODED.slice(0, 100)}é${ENCODED.slice(102)}`],
  ];

  it.each(variants)('%s: same verdict as decodeStrictBase64', (_name, value) => {
    expect(same(decodeStrictBase64Bytes(Buffer.from(value, 'utf8'), MAX), ordinary(value))).toBe(true);
  });

  it('never decodes past the size limit', () => {
    expect(same(decodeStrictBase64Bytes(Buffer.from(ENCODED), IMAGE.length), IMAGE)).toBe(true);
    expect(decodeStrictBase64Bytes(Buffer.from(ENCODED), IMAGE.length - 1)).toBeUndefined();
  });

  it('agrees with decodeStrictBase64 on random values, with random damage', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ *\\"\n';
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200_000 }), fc.nat(), fc.constantFrom(...alphabet), fc.boolean(), (bytes, at, char, damage) => {
        const encoded = Buffer.from(bytes).toString('base64');
        const position = at % encoded.length;
        const value = damage ? encoded.slice(0, position) + char + encoded.slice(position + 1) : encoded;
        expect(same(decodeStrictBase64Bytes(Buffer.from(value, 'latin1'), MAX), ordinary(value))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe('readJsonBody with a large base64_image', () => {
  it('lifts a canonical value out of the text and decodes it', async () => {
    const json = await read(bodyWith(JSON.stringify(ENCODED)));
    expect(same(json.image, IMAGE)).toBe(true);
    expect(same(decoded(json), IMAGE)).toBe(true);
  });

  it.each<[string, Buffer, boolean]>([
    ['escaped slashes (as PHP sends them)', bodyWith(JSON.stringify(ENCODED).replace(/\//g, '\\/')), false],
    ['a damaged value', bodyWith(JSON.stringify(`${ENCODED.slice(0, 500)}!${ENCODED.slice(501)}`)), false],
    ['a later duplicate key', bodyWith(JSON.stringify(ENCODED), (props) => `${props},"base64_image":"QUJD"`), false],
    ['a later empty duplicate (the marker must be unguessable)', bodyWith(JSON.stringify(ENCODED), (props) => `${props},"base64_image":""`), false],
    ['the key first seen at the top level', Buffer.from(`{"base64_image":${JSON.stringify(ENCODED)},${bodyWith(JSON.stringify(ENCODED)).toString().slice(1)}`), false],
    ['a key that only ends in base64_image', bodyWith(`"QUJD","x\\"base64_image":${JSON.stringify(ENCODED)}`), false],
    ['a short value', bodyWith(JSON.stringify(ENCODED.slice(0, CUT_MIN_CHARS - 4))), false],
    ['a value of exactly the cut size', bodyWith(JSON.stringify(ENCODED.slice(0, CUT_MIN_CHARS))), true],
    ['whitespace around the colon', Buffer.from(bodyWith(JSON.stringify(ENCODED)).toString().replace('"base64_image":', '"base64_image" :\r\n\t ')), true],
  ])('%s: the same body and image as parsing it whole', async (_name, bytes, lifted) => {
    const json = await read(bytes);
    expect(json.image !== undefined).toBe(lifted);
    const whole = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    const value = (whole.event as Record<string, Record<string, Record<string, string>>>).event_data!.event_additional_properties!.base64_image!;
    expect(same(decoded(json), ordinary(value))).toBe(true);
    if (json.image === undefined) expect(json.body).toEqual(whole);
  });

  it.each([
    ['no event', `{"base64_image":${JSON.stringify(ENCODED)}}`],
    ['an event that is not an object', `{"event":"x","base64_image":${JSON.stringify(ENCODED)}}`],
    ['event_data that is not an object', `{"event":{"event_data":"x"},"base64_image":${JSON.stringify(ENCODED)}}`],
    ['properties that are not an object', `{"event":{"event_data":{"event_additional_properties":5}},"base64_image":${JSON.stringify(ENCODED)}}`],
    ['a null event', `{"event":null,"base64_image":${JSON.stringify(ENCODED)}}`],
    ['null event_data', `{"event":{"event_data":null},"base64_image":${JSON.stringify(ENCODED)}}`],
    ['null properties', `{"event":{"event_data":{"event_additional_properties":null}},"base64_image":${JSON.stringify(ENCODED)}}`],
    ['properties without base64_image', `{"event":{"event_data":{"event_additional_properties":{}}},"base64_image":${JSON.stringify(ENCODED)}}`],
  ])('the marker anywhere else (%s): nothing lifted, the body parsed whole', async (_name, text) => {
    expect(cutImage(Buffer.from(text), MAX)).toBeDefined();
    const json = await read(Buffer.from(text));
    expect(json.image).toBeUndefined();
    expect(json.body).toEqual(JSON.parse(text));
  });

  it('leaves invalid JSON invalid: a control character in the value is not lifted', async () => {
    const bytes = bodyWith(`"${ENCODED.slice(0, 200)}\u0001${ENCODED.slice(201)}"`);
    expect(cutImage(bytes, MAX)).toBeUndefined();
    await expect(read(bytes)).rejects.toThrow('body is not valid JSON');
  });
});
