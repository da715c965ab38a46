import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteName } from '../src/contract/index.js';

describe('quoteName (caller-chosen values in error messages)', () => {
  it('leaves a plain name as it reads, in single quotes', () => {
    expect(quoteName('vendor-x')).toBe("'vendor-x'");
    expect(quoteName('caméra 🎥')).toBe("'caméra 🎥'");
  });

  it.each([
    ['a bidi override', 'ab\u202ecd', "'ab\\u202ecd'"],
    ['a right-to-left mark', 'a\u200fb', "'a\\u200fb'"],
    ['a zero-width space', '\u200b', "'\\u200b'"],
    ['a newline and an escape', 'a\n\u001b[31m', "'a\\u000a\\u001b[31m'"],
    ['a lone surrogate', 'x\ud800', "'x\\ud800'"],
    ['its own quote and a backslash', "it's\\", "'it\\u0027s\\u005c'"],
    ['a line separator', 'a\u2028b', "'a\\u2028b'"],
  ])('escapes %s', (_, value, quoted) => {
    expect(quoteName(value)).toBe(quoted);
  });

  it('quotes with double quotes when asked, escaping those instead', () => {
    expect(quoteName('a"b\u202e', '"')).toBe('"a\\u0022b\\u202e"');
    expect(quoteName("it's", '"')).toBe('"it\'s"');
  });

  it('never lets a control, format character, separator or its quote through unescaped', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const inner = quoteName(value).slice(1, -1);
        expect(inner).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}']/u);
      }),
    );
  });
});
