import { createHash } from 'node:crypto';
import { invalidArgument, textProblem } from '@dynamic-events/proto';

/**
 * Opaque tokens for list pages and watch cursors: base64url of a small JSON document naming what the
 * token belongs to (`kind`: a list, or the watch), a digest of the request it continues (`scope`:
 * filter and order) and the position. A token from another list, filter or order, or that does not
 * decode, is INVALID_ARGUMENT naming the field it came in. Tokens carry positions, not secrets: a
 * caller who edits one only moves its own position, and every value of a position is checked here
 * (strings without U+0000 or lone surrogates, which no stored value holds) and by its list (its
 * shape), so an edited token is refused naming the field before any query sees it.
 */
interface TokenCodec {
  encode(position: string[]): string;
  /** The position the token holds; throws INVALID_ARGUMENT naming `field` when it is not one of ours. */
  decode(token: string, field: string): string[];
}

/** No token of ours comes near this; longer input is refused before it is decoded. */
const MAX_TOKEN_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A short digest of whatever a token must stay bound to (filter, order). */
export function scopeOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

export function createTokenCodec(kind: string, scope: string, positionLength: number): TokenCodec {
  return {
    encode: (position) => Buffer.from(JSON.stringify({ v: 1, k: kind, s: scope, p: position })).toString('base64url'),
    decode(token, field) {
      const bad = (why: string) => invalidArgument(field, 'token', `${field} is ${why}`);
      if (token.length > MAX_TOKEN_LENGTH || !BASE64URL.test(token)) throw bad('malformed');
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      } catch {
        throw bad('malformed');
      }
      const doc = parsed as { v?: unknown; k?: unknown; s?: unknown; p?: unknown } | null;
      if (typeof doc !== 'object' || doc === null || doc.v !== 1 || !Array.isArray(doc.p)) throw bad('malformed');
      if (doc.k !== kind || doc.s !== scope) throw bad('not valid for this request (it belongs to another list, filter or order)');
      const position = doc.p as unknown[];
      if (position.length !== positionLength || !position.every((x) => typeof x === 'string' && textProblem(x) === undefined)) throw bad('malformed');
      return position as string[];
    },
  };
}
