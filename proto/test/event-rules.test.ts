import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCharacters, checkUtf8, identityConflict, textProblem } from '../src/index.js';

describe('textProblem', () => {
  it('finds NUL and lone surrogates, and nothing in well-formed text', () => {
    expect(textProblem('a\u0000b')).toBe('nul');
    for (const s of ['\ud800', 'x\udbff', '\udc00y', '\udfff', '\ude00\ud83d']) expect(textProblem(s)).toBe('lone-surrogate');
    for (const s of ['', 'plain', '😀', '\ud83d\ude00', '\ufffd', 'caméra']) expect(textProblem(s)).toBeUndefined();
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => textProblem(s.replaceAll('\u0000', '')) === undefined));
  });

  it('names the field and the rule', () => {
    expect(() => checkCharacters('source.object_id', 'o\ud800')).toThrow(
      expect.objectContaining({ details: { field: 'source.object_id', rule: 'characters' }, message: expect.stringContaining('source.object_id must not contain lone surrogates') }),
    );
    expect(() => checkCharacters('props', '\u0000', true)).toThrow('props keys must not contain NUL characters (U+0000)');
  });
});

describe('checkUtf8', () => {
  it('accepts UTF-8 and refuses everything a lenient decoder would turn into U+FFFD', () => {
    expect(() => checkUtf8(Buffer.from('{"a":"caméra 😀 \ufffd"}'))).not.toThrow();
    for (const bad of [[0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]]) {
      expect(() => checkUtf8(Buffer.from(bad))).toThrow(expect.objectContaining({ message: 'body is not valid UTF-8', details: { field: 'body', rule: 'encoding' } }));
    }
  });
});

describe('identityConflict', () => {
  it('refuses a second split of one full id with ALREADY_EXISTS naming the existing object', () => {
    const err = identityConflict({ objectDomain: 'col.a.b', objectId: 'c' }, { objectDomain: 'col.a', objectId: 'b.c' });
    expect(err).toMatchObject({ code: 'ALREADY_EXISTS', details: { field: 'source.object_id', rule: 'identity-conflict' } });
    expect(err?.message).toBe(
      'object "col.a.b.c" already exists with object_domain "col.a.b" and object_id "c": source.object_domain "col.a" with source.object_id "b.c" would give another object the same identity',
    );
    expect(identityConflict({ objectDomain: 'col.a', objectId: 'b.c' }, { objectDomain: 'col.a', objectId: 'b.c' })).toBeUndefined();
  });
});
