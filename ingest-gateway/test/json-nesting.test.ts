/** The shape pre-check must agree with the real structure of any JSON text, whatever its strings hold. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonShapeExceeds } from '../src/ingest/json-body.js';

/** Depth of a parsed value: a scalar is 0, an array or object one more than its deepest member. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce<number>((deepest, member) => Math.max(deepest, depthOf(member)), 0);
}

/** Separators of a parsed value: one ':' per object member, one ',' between neighbours. */
function separatorsOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  const own = (Array.isArray(value) ? 0 : members.length) + Math.max(0, members.length - 1);
  return own + members.reduce<number>((sum, member) => sum + separatorsOf(member), 0);
}

/** Strings made of the characters the scanner must not be fooled by. */
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', ':') });
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
})).value;

describe('jsonShapeExceeds', () => {
  it('agrees with the parsed depth and number of values for any JSON text and any limits', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 30 }), (value, maxDepth, maxValues) => {
        const text = JSON.stringify(value);
        const parsed: unknown = JSON.parse(text);
        const expected = depthOf(parsed) > maxDepth ? 'depth' : separatorsOf(parsed) > maxValues ? 'values' : undefined;
        // Which limit is reported first depends on where in the text each is crossed; both are refusals.
        const got = jsonShapeExceeds(text, maxDepth, maxValues);
        if (expected === undefined) expect(got).toBeUndefined();
        else expect(got).toBeDefined();
        if (expected === 'depth' && separatorsOf(parsed) <= maxValues) expect(got).toBe('depth');
        if (expected === 'values' && depthOf(parsed) <= maxDepth) expect(got).toBe('values');
      }),
      { numRuns: 2000 },
    );
  });

  it('ends a string at a quote after an even run of backslashes, not after an odd one', () => {
    expect(jsonShapeExceeds('{"a":"\\\\"}', 1, 10)).toBeUndefined();
    expect(jsonShapeExceeds('{"a":"\\\\",[[]]}', 2, 10)).toBe('depth');
    expect(jsonShapeExceeds('{"a":"\\"[[[[,,,,"}', 1, 1)).toBeUndefined();
  });

  it('treats an unterminated string as running to the end', () => {
    expect(jsonShapeExceeds('{"a":"[[[[', 1, 10)).toBeUndefined();
    expect(jsonShapeExceeds('[[["', 2, 10)).toBe('depth');
  });

  it('counts members and elements, not characters inside strings', () => {
    expect(jsonShapeExceeds(JSON.stringify({ a: 'x,y:z', b: [1, 2, 3] }), 4, 5)).toBeUndefined();
    expect(jsonShapeExceeds(JSON.stringify({ a: 'x,y:z', b: [1, 2, 3, 4] }), 4, 5)).toBe('values');
  });
});
