import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { decodeStrictBase64 } from '../src/ingest/base64.js';
import { mutate, startGateway, TINY_PNG, type TestGateway } from './helpers.js';

const FIELD = 'event.event_data.event_additional_properties.base64_image';

function failure(value: string, max = 1024): { status: number; rule: string | undefined; message: string } {
  try {
    decodeStrictBase64(value, max, FIELD);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.details.httpStatus ?? 400, rule: err.details.rule, message: err.message };
  }
  throw new Error(`accepted ${value}`);
}

describe('decodeStrictBase64', () => {
  it('decodes canonical Base64, with or without a data:image prefix', () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253]);
    const encoded = bytes.toString('base64');
    expect(decodeStrictBase64(encoded, 1024, FIELD)).toEqual(bytes);
    expect(decodeStrictBase64(`data:image/png;base64,${encoded}`, 1024, FIELD)).toEqual(bytes);
    expect(decodeStrictBase64(`DATA:image/svg+xml;BASE64,${encoded}`, 1024, FIELD)).toEqual(bytes);
    expect(decodeStrictBase64('+/+/', 1024, FIELD)).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it.each([
    ['a bad character', 'QUJD*EVG'],
    ['URL-safe alphabet', '-_-_'],
    ['a space', 'QUJD REVG'],
    ['a newline', 'QUJD\nREVG'],
    ['a trailing newline', 'QUJDREVG\n'],
    ['missing padding', 'QUI'],
    ['too much padding', 'QQ==='],
    ['padding in the middle', 'QQ==QUJD'],
    ['a single character', 'Q'],
    ['non-canonical trailing bits', 'QR=='],
    ['non-ASCII', 'QUJDRé=='],
    ['a data: prefix for a non-image type', `data:text/plain;base64,${Buffer.from('abc').toString('base64')}`],
    ['a data: prefix without base64', 'data:image/png,QUJD'],
  ])('rejects %s with 400', (_name, value) => {
    expect(failure(value)).toEqual({
      status: 400,
      rule: 'base64',
      message: `${FIELD} must be strict Base64 (standard alphabet, correct padding, no whitespace)`,
    });
  });

  it('rejects an empty value, also after the prefix', () => {
    expect(failure('')).toEqual({ status: 400, rule: 'not-empty', message: `${FIELD} must not be empty` });
    expect(failure('data:image/png;base64,')).toEqual({ status: 400, rule: 'not-empty', message: `${FIELD} must not be empty` });
  });

  it('answers 413 above the limit, exactly at the boundary', () => {
    expect(decodeStrictBase64(Buffer.alloc(1024).toString('base64'), 1024, FIELD)).toHaveLength(1024);
    expect(failure(Buffer.alloc(1025).toString('base64'))).toEqual({ status: 413, rule: 'max-bytes', message: `${FIELD} exceeds 1024 bytes when decoded` });
  });

  it('accepts exactly the canonical encodings (same verdict as a full decode and re-encode)', () => {
    // Characters Node's decoder treats specially: URL alphabet, '=', whitespace, others it skips.
    const alphabet = fc.constantFrom(...'AQgw+/09az-_=* \n.é'.split(''));
    const canonical = (s: string) => Buffer.from(s, 'base64').toString('base64') === s && s.length > 0;
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 16 }), fc.uint8Array({ maxLength: 12 }), (chars, bytes) => {
        // Half the cases: valid encodings with one character changed, so near misses are common.
        const text = chars.length % 2 === 0 ? chars.join('') : Buffer.from(bytes).toString('base64') + chars.slice(0, 1).join('');
        let accepted = true;
        try {
          decodeStrictBase64(text, 1024, FIELD);
        } catch {
          accepted = false;
        }
        expect(accepted, JSON.stringify(text)).toBe(canonical(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('checks the size before the alphabet, so a huge invalid string is never decoded', () => {
    expect(failure('!'.repeat(10_000)).status).toBe(413);
  });
});

describe('base64_image over HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ maxImageBytes: 1000 });
  });
  afterAll(() => gw.close());

  const withImage = (value: string) => mutate((b) => (b.event.event_data.event_additional_properties.base64_image = value));

  it('rejects bad Base64 with 400 and calls nothing', async () => {
    const padded = Buffer.concat([TINY_PNG, Buffer.from('x')]).toString('base64');
    expect(padded.endsWith('=')).toBe(true);
    for (const value of ['iVBOR w0KGgo=', `${padded}\n`, `\t${padded}`, padded.replace(/=+$/, ''), '%%%%']) {
      const response = await gw.post(withImage(value));
      expect(response.status, value).toBe(400);
      expect(response.json.error).toBe(`${FIELD} must be strict Base64 (standard alphabet, correct padding, no whitespace)`);
    }
    expect(gw.media.calls).toEqual([]);
    expect(gw.registry.calls).toEqual([]);
  });

  it('answers 413 for a huge image without calling media', async () => {
    const response = await gw.post(withImage(`data:image/png;base64,${Buffer.alloc(1001).toString('base64')}`));
    expect(response).toMatchObject({ status: 413, json: { error: `${FIELD} exceeds 1000 bytes when decoded` } });
    expect(gw.media.calls).toEqual([]);
    expect(gw.registry.calls).toEqual([]);
  });

  it('accepts the data: prefix and stores the decoded bytes', async () => {
    const response = await gw.post(withImage(`data:image/png;base64,${TINY_PNG.toString('base64')}`));
    expect(response.status).toBe(200);
    expect(gw.media.stored).toEqual([TINY_PNG]);
  });
});
