import { AppError } from '@dynamic-events/proto';

/** The content codings a request body may arrive in; `identity` is none. */
export type ContentCoding = 'identity' | 'gzip' | 'deflate' | 'br';

// A Map, not an object literal: a header naming `constructor` or `__proto__` must find nothing.
const CODINGS = new Map<string, ContentCoding>([['identity', 'identity'], ['gzip', 'gzip'], ['x-gzip', 'gzip'], ['deflate', 'deflate'], ['br', 'br']]);

/** A header value short and plain enough to quote back in an error message. */
const QUOTABLE = /^[\w!#$%&'*+.^`|~ ,-]{1,40}$/;

/**
 * The one coding a Content-Encoding header applies, or a 415 that says what is accepted.
 * Content-Encoding is a comma-separated list of codings in the order they were applied, and codings
 * are case-insensitive (RFC 9110 §8.4, §8.4.1): `GZIP`, `Gzip` and `gzip` are one coding, `x-gzip`
 * is gzip (§8.4.1.3), and empty list elements are ignored. `identity` changes nothing, so it may
 * appear anywhere in the list. Of the others at most one is accepted: a body compressed twice is
 * refused, not unwrapped layer by layer. Node joins a repeated header into one list, so two
 * Content-Encoding lines are read like one. Every path that reads a body or budgets for it asks here.
 */
export function contentCodingOf(header: string | undefined): ContentCoding {
  const coding = parseContentCoding(header);
  if (coding === undefined) throw unsupportedCoding(header ?? '');
  return coding;
}

/** As contentCodingOf, with undefined for a header it would refuse. */
export function parseContentCoding(header: string | undefined): ContentCoding | undefined {
  let applied: ContentCoding = 'identity';
  for (const element of (header ?? '').split(',')) {
    const name = element.trim().toLowerCase();
    if (name === '') continue;
    const coding = CODINGS.get(name);
    if (coding === undefined || (coding !== 'identity' && applied !== 'identity')) return undefined;
    if (coding !== 'identity') applied = coding;
  }
  return applied;
}

/** 415 naming the header as sent (when it is short and plain), never a normalised spelling of it. */
function unsupportedCoding(header: string): AppError {
  const value = header.trim();
  const named = QUOTABLE.test(value) ? `Content-Encoding "${value}"` : 'Content-Encoding';
  return new AppError('INVALID_ARGUMENT', `${named} is not supported (use one of gzip, deflate, br or none)`, {
    httpStatus: 415,
    field: 'Content-Encoding',
    rule: 'content-encoding',
  });
}
