import { AppError, invalidArgument } from '@dynamic-events/proto';

/** Optional data-URL prefix the spec allows in front of the Base64 payload. */
const DATA_URL_PREFIX = /^data:image\/[A-Za-z0-9.+-]+;base64,/i;
/** Standard alphabet, padding only at the end (length is checked separately). */
const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes strict Base64 (standard alphabet, correct padding, no whitespace, canonical trailing
 * bits). Node's decoder silently skips bad characters, so the result is re-encoded and compared.
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
  if (payload.length % 4 !== 0 || !STRICT_BASE64.test(payload)) throw invalid();
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.toString('base64') !== payload) throw invalid();
  return bytes;
}
