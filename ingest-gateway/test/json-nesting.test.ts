/** The nesting pre-check must agree with the real structure of any JSON text, whatever its strings hold. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestingExceeds } from '../src/middleware/json-body.js';

/** Depth of a parsed value: a scalar is 0, an array or object one more than its deepest member. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce<number>((deepest, member) => Math.max(deepest, depthOf(member)), 0);
}

/** Strings made of the characters the scanner must not be fooled by. */
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', ':') });
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
})).value;

describe('nestingExceeds', () => {
  it('agrees with the parsed depth for any JSON text and any limit', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 8 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(nestingExceeds(text, max)).toBe(depthOf(JSON.parse(text)) > max);
      }),
      { numRuns: 2000 },
    );
  });

  it('ends a string at a quote after an even run of backslashes, not after an odd one', () => {
    expect(nestingExceeds('{"a":"\\\\"}', 1)).toBe(false);
    expect(nestingExceeds('{"a":"\\\\",[[]]}', 2)).toBe(true);
    expect(nestingExceeds('{"a":"\\"[[[["}', 1)).toBe(false);
  });

  it('treats an unterminated string as running to the end', () => {
    expect(nestingExceeds('{"a":"[[[[', 1)).toBe(false);
    expect(nestingExceeds('[[["', 2)).toBe(true);
  });
});
