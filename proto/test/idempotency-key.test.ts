/** The shared Idempotency-Key rules (gateway header and registry field): their exact boundaries. */
import { describe, expect, it } from 'vitest';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH } from '../src/contract/index.js';

function refusal(key: string): unknown {
  try {
    checkIdempotencyKey(key);
  } catch (err) {
    return err;
  }
  return 'accepted';
}

describe('checkIdempotencyKey', () => {
  it('accepts 1 to 255 printable ASCII characters, space and tilde included', () => {
    expect(IDEMPOTENCY_KEY_HEADER).toBe('Idempotency-Key');
    expect(IDEMPOTENCY_KEY_MAX_LENGTH).toBe(255);
    for (const key of ['k', ' k', 'a b', '~', '!', `${' '.repeat(254)}x`, '~'.repeat(255), 'order-42/retry#1']) expect(refusal(key)).toBe('accepted');
  });

  it.each([
    ['empty', '', 'required', 'Idempotency-Key header must not be empty'],
    ['blank', ' \t ', 'required', 'Idempotency-Key header must not be empty'],
    ['256 characters', 'k'.repeat(256), 'max-length', 'Idempotency-Key header must be at most 255 characters'],
    ['256 blanks and a letter', `${' '.repeat(255)}x`, 'max-length', 'Idempotency-Key header must be at most 255 characters'],
    ['U+001F', 'a\u001fb', 'characters', 'Idempotency-Key header must contain only printable ASCII characters'],
    ['DEL (U+007F)', 'a\u007f', 'characters', 'Idempotency-Key header must contain only printable ASCII characters'],
    ['a control character first', '\u0000ab', 'characters', 'Idempotency-Key header must contain only printable ASCII characters'],
    ['a letter outside ASCII last', 'abé', 'characters', 'Idempotency-Key header must contain only printable ASCII characters'],
  ])('refuses a key that is %s (rule %s)', (_name, key, rule, message) => {
    expect(refusal(key)).toMatchObject({ code: 'INVALID_ARGUMENT', message, details: { field: 'Idempotency-Key', rule } });
  });
});
