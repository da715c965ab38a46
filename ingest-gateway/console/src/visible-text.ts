/**
 * Characters untrusted text must not carry raw on screen: C0/C1 controls, format characters (bidi
 * marks and overrides, zero-width characters: \p{Cf}), line and paragraph separators, lone
 * surrogates. Raw, a right-to-left override makes `safe\u202Etxt.exe` read "safeexe.txt". The same
 * set the API escapes in its messages (the proto package's escapeUnsafe; a test keeps them equal),
 * but a backslash stays as it is: a page shows text, not a message to parse.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `text` with every unsafe character as a visible `\uXXXX` escape (`\u202e`), as the API writes them. */
export function visible(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
