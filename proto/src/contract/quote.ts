/**
 * Characters a message must not carry raw: C0/C1 controls, format characters (bidi marks and
 * overrides, zero-width characters: \p{Cf}), line and paragraph separators, lone surrogates, and
 * the backslash (so an escape always means one). In a log line or a terminal they forge lines or
 * reorder what is shown ("Trojan Source").
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/gu;
const UNSAFE_IN = { "'": /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\']/gu, '"': /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\"]/gu } as const;

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A caller-chosen value with every unsafe character as a JSON-style \uXXXX escape, for a message that shows it unquoted (a path). */
export function escapeUnsafe(value: string): string {
  return value.replace(UNSAFE, escape);
}

/**
 * A caller-chosen value (a token name, a path segment) quoted for an error message, every unsafe
 * character and the quote itself as a \uXXXX escape. A plain name reads as before ('vendor-x'); a
 * hostile one cannot break out of its quotes or reorder the text around it.
 */
export function quoteName(value: string, quote: "'" | '"' = "'"): string {
  return `${quote}${value.replace(UNSAFE_IN[quote], escape)}${quote}`;
}
