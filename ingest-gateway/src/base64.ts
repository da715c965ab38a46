import { AppError, invalidArgument } from '@dynamic-events/proto';

/** Optional data-URL prefix the spec allows in front of the Base64 payload. */
const DATA_URL_PREFIX = /^data:image\/[A-Za-z0-9.+-]+;base64,/i;

/**
 * Decodes strict Base64 (standard alphabet, correct padding, no whitespace, canonical trailing
 * bits). Node's decoder skips characters outside its alphabet, stops at the first '=', and also
 * takes the URL alphabet ('-', '_'); strictness is checked around it without a second pass over
 * the bytes:
 * - every character before the padding decoded: only then is the output exactly
 *   3/4 of the length minus the padding (each skipped character, or an early '=', shortens it);
 * - no URL-alphabet character (two native searches);
 * - canonical trailing bits: the last group re-encodes to the same four characters.
 * A regex over the alphabet cost three times the decode on a 117 KiB image, and re-encoding the
 * whole value allocated a second string of the body's size (a large-object allocation that drove
 * the gateway's major GCs under image load).
 * The size is checked on the encoded length first, so an oversized value is never decoded.
 * Errors: 400 (rule "not-empty" or "base64") and 413 (rule "max-bytes"), all naming `field`.
 */
export function decodeStrictBase64(value: string, maxBytes: number, field: string): Buffer {
  const prefix = DATA_URL_PREFIX.exec(value);
  const payload = prefix ? value.slice(prefix[0].length) : value;
  if (payload.length === 0) throw invalidArgument(field, 'not-empty', `${field} must not be empty`);

  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const decodedBytes = Math.floor((payload.length * 3) / 4) - padding;
  if (decodedBytes > maxBytes) {
    throw new AppError('INVALID_ARGUMENT', `${field} exceeds ${maxBytes} bytes when decoded`, {
      httpStatus: 413,
      field,
      rule: 'max-bytes',
    });
  }

  const invalid = () =>
    invalidArgument(field, 'base64', `${field} must be strict Base64 (standard alphabet, correct padding, no whitespace)`);
  if (payload.length % 4 !== 0 || payload.includes('-') || payload.includes('_')) throw invalid();
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length !== decodedBytes) throw invalid();
  // Only a padded last group has spare bits; they must be zero (one encoding per byte string).
  if (padding > 0 && bytes.toString('base64', bytes.length - (3 - padding)) !== payload.slice(-4)) throw invalid();
  return bytes;
}
