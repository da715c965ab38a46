import { invalidArgument } from './app-error.js';

/** The HTTP header, also the field named in every error about the key (gateway and registry alike). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Longest key accepted (Stripe's limit); a key is caller text, stored as sent. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Printable ASCII only: a header value is bytes, and anything else would be decoded differently by each proxy. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The rules of an Idempotency-Key, owned here so the gateway (the header) and the registry (other
 * platform services call it directly) refuse the same keys with the same message.
 * Throws INVALID_ARGUMENT naming the header and the rule: required, max-length, characters.
 */
export function checkIdempotencyKey(value: string): void {
  if (value.trim() === '') {
    throw invalidArgument(IDEMPOTENCY_KEY_HEADER, 'required', `${IDEMPOTENCY_KEY_HEADER} header must not be empty`);
  }
  if (value.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw invalidArgument(IDEMPOTENCY_KEY_HEADER, 'max-length', `${IDEMPOTENCY_KEY_HEADER} header must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
  }
  if (!PRINTABLE_ASCII.test(value)) {
    throw invalidArgument(IDEMPOTENCY_KEY_HEADER, 'characters', `${IDEMPOTENCY_KEY_HEADER} header must contain only printable ASCII characters`);
  }
}
