/** Boundaries of decodeStrictBase64 that decide between accepted, 400 and 413. */
import { describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { decodeStrictBase64 } from '../src/ingest/base64.js';

const FIELD = 'image';

function refusal(value: string, max: number): { code: string; status: number | undefined; rule: unknown } {
  try {
    decodeStrictBase64(value, max, FIELD);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, status: err.details.httpStatus, rule: err.details.rule };
  }
  throw new Error(`accepted ${value}`);
}

describe('decodeStrictBase64 size boundaries', () => {
  it('counts one padding character: 5 bytes fit a 5-byte limit, 6 do not', () => {
    const five = Buffer.from([1, 2, 3, 4, 5]);
    expect(five.toString('base64')).toMatch(/[^=]=$/);
    expect(decodeStrictBase64(five.toString('base64'), 5, FIELD)).toEqual(five);
    expect(refusal(Buffer.alloc(6).toString('base64'), 5)).toEqual({ code: 'INVALID_ARGUMENT', status: 413, rule: 'max-bytes' });
  });

  it('counts two padding characters: 4 bytes fit a 4-byte limit', () => {
    const four = Buffer.from([9, 8, 7, 6]);
    expect(decodeStrictBase64(four.toString('base64'), 4, FIELD)).toEqual(four);
  });

  it('treats data:image only at the very start as a prefix (elsewhere the whole value counts)', () => {
    // 26 characters would decode to 19 bytes: over the limit, although the text after the
    // would-be prefix is short.
    expect(refusal('AAAAdata:image/png;base64,', 3)).toMatchObject({ status: 413, rule: 'max-bytes' });
  });

  it('refuses bad Base64 as INVALID_ARGUMENT with 400', () => {
    expect(refusal('QUJ', 10)).toEqual({ code: 'INVALID_ARGUMENT', status: undefined, rule: 'base64' });
  });
});
