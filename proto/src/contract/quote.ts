/**
 * Characters a message must not carry raw: C0/C1 controls, format characters (bidi marks and
 * overrides, zero-width characters: \p{Cf}), line and paragraph separators, lone surrogates, and
 * the quote and backslash themselves. In a log line or a terminal they forge lines or reorder what
 * is shown ("Trojan Source").
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}'\\]/gu;

/**
 * A caller-chosen value (a token name, a path segment) quoted for an error message: in single
 * quotes, every unsafe character as a JSON-style \uXXXX escape. A plain name reads as before
 * ('vendor-x'); a hostile one cannot break out of its quotes or reorder the text around it.
 */
export function quoteName(value: string): string {
  return `'${value.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
}
