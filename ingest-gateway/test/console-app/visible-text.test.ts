/** Untrusted text as the console shows it: control and format characters as the API's escapes, links by their parsed href. */
import fc from 'fast-check';
import { escapeUnsafe } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { visible } from '../../console/src/visible-text.js';
import { shownUrl } from '../../console/src/media-links.js';

describe('visible', () => {
  it('writes control, bidirectional and other format characters as \\uXXXX escapes, and leaves other text alone', () => {
    expect(visible('safe\u202Etxt.exe')).toBe('safe\\u202etxt.exe');
    expect(visible('a\u2066b\u200Fc\u061Cd\u200Be\u00ADf')).toBe('a\\u2066b\\u200fc\\u061cd\\u200be\\u00adf');
    expect(visible('one\ntwo\tthree\u0000\u001B[31m\u0085\u2028')).toBe('one\\u000atwo\\u0009three\\u0000\\u001b[31m\\u0085\\u2028');
    expect(visible('caméra <b>ünïcode</b> 漢字 \\ C:\\path')).toBe('caméra <b>ünïcode</b> 漢字 \\ C:\\path');
  });

  it('escapes exactly what the API escapes in its messages (the proto package), a backslash aside', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const plain = text.replaceAll('\\', '');
        expect(visible(plain)).toBe(escapeUnsafe(plain));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('links by their parsed href', () => {
  it('percent-encodes a bidi override in the path and writes a look-alike host in punycode', () => {
    expect(shownUrl('https://evil.example/\u202Egnp.exe', '/api/platform/dh')).toEqual({ kind: 'link', href: 'https://evil.example/%E2%80%AEgnp.exe' });
    expect(shownUrl('https://\u0430\u0440\u0440\u04CF\u0435.com/', '/api/platform/dh')).toEqual({ kind: 'link', href: 'https://xn--80ak6aa92e.com/' });
  });
});
