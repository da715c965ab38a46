/** The body's media type and JSON shape checks, as the caller sees them: status, field, rule, message. */
import { describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { assertJsonContentType, parseJsonObject } from '../src/ingest/json-body.js';

function refusal(run: () => unknown): { code: string; status: number | undefined; field: unknown; rule: unknown; message: string } {
  try {
    run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, status: err.details.httpStatus, field: err.details.field, rule: err.details.rule, message: err.message };
  }
  throw new Error('accepted');
}

describe('assertJsonContentType', () => {
  it.each(['application/json', 'application/json ;charset=utf-8', 'APPLICATION/JSON', 'application/json; CHARSET=UTF8', 'application/json; charset= utf-8 ', 'application/json; charset="utf-8"', 'application/json; foo=bar'])(
    'accepts %s',
    (header) => {
      expect(() => assertJsonContentType(header)).not.toThrow();
    },
  );

  it.each([
    ['', 'Content-Type must be application/json'],
    ['text/json', 'Content-Type must be application/json'],
    ['application/json; charset=utf-16', 'Content-Type charset must be utf-8'],
    ['application/json; charset', 'Content-Type charset must be utf-8'],
    // Quotes count only when they enclose the whole value.
    ['application/json; charset=utf-8""', 'Content-Type charset must be utf-8'],
    ['application/json; charset=""utf-8', 'Content-Type charset must be utf-8'],
  ])('answers 415 for %j', (header, message) => {
    expect(refusal(() => assertJsonContentType(header))).toEqual({ code: 'INVALID_ARGUMENT', status: 415, field: 'Content-Type', rule: 'content-type', message });
  });
});

describe('parseJsonObject', () => {
  const limits = { maxDepth: 3, maxValues: 4 };

  it('returns the object, with __proto__ as an own key', () => {
    const parsed = parseJsonObject('{"a":[1,{"b":2}],"__proto__":"x"}', { maxDepth: 3, maxValues: 5 });
    expect(parsed).toEqual(JSON.parse('{"a":[1,{"b":2}],"__proto__":"x"}'));
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
  });

  it.each([
    ['too deep', '{"a":[[[]]]}', 'max-depth', 'body is nested too deeply (max 3 levels)'],
    ['too many values', '{"a":1,"b":2,"c":3}', 'max-values', 'body holds too many JSON values (max 4 members and elements)'],
    ['not JSON', '{"a":', 'invalid-json', 'body is not valid JSON'],
    ['an array', '[1]', 'not-object', 'body must be a JSON object'],
    ['null', 'null', 'not-object', 'body must be a JSON object'],
    ['a string', '"{}"', 'not-object', 'body must be a JSON object'],
  ])('refuses %s with 400 on the body', (_name, text, rule, message) => {
    expect(refusal(() => parseJsonObject(text, limits))).toEqual({ code: 'INVALID_ARGUMENT', status: undefined, field: 'body', rule, message });
  });

  it('accepts exactly the limits', () => {
    expect(parseJsonObject('{"a":[[1]],"b":2}', limits)).toEqual({ a: [[1]], b: 2 });
  });
});
