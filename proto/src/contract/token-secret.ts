import { createHash, randomBytes } from 'node:crypto';

/**
 * The shape of token secrets, shared by the registry (which makes them) and the gateway (which
 * checks them). A fixed, recognisable prefix lets secret scanners (GitHub's, gitleaks...) find a
 * leaked token; 32 random bytes make it unguessable, so a fast hash is enough to store it (a slow
 * password hash protects low-entropy secrets, which these are not).
 */
const TOKEN_SECRET_PREFIX = 'dhe_';

/** Characters of a secret shown in lists: the prefix and 8 of its 43 random characters (48 bits). */
const SHOWN_CHARS = TOKEN_SECRET_PREFIX.length + 8;

/** A new secret: `dhe_` and 32 random bytes in base64url (47 characters, all valid in a header). */
export function newTokenSecret(): string {
  return `${TOKEN_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What is stored and compared: SHA-256 of the secret's UTF-8 bytes. */
export function hashTokenSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** The non-secret beginning of a secret, shown in lists to recognise a token. */
export function tokenPrefixOf(secret: string): string {
  return secret.slice(0, SHOWN_CHARS);
}
