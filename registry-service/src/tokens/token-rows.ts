import type { TokenPolicy } from './token-policy.js';

/** The token rows as the registry stores and returns them (the query modules and the domain share them). */

/** A token as stored, without its hash. */
export interface TokenRecord {
  id: string;
  name: string;
  /** The secret's first characters, to recognise it. */
  prefix: string;
  policy: TokenPolicy;
  /** The DYNAMIC_EVENTS_TOKEN row: listed read-only, changed only through that setting. */
  bootstrap: boolean;
  createdAtMicros: bigint;
  lastUsedAtMicros: bigint | undefined;
  expiresAtMicros: bigint | undefined;
  revokedAtMicros: bigint | undefined;
}

/** What CreateToken asks for, before validation. */
export interface TokenDraft {
  name: string;
  policy: TokenPolicy;
  expiresAtMicros?: bigint;
}

/** A row to insert: the draft, validated, with its id and its secret's prefix and hash. */
export interface NewTokenRow extends TokenDraft {
  id: string;
  prefix: string;
  secretSha256: Buffer;
}

/** What UpdateToken changes: absent fields stay; `expiresAtMicros: null` removes the expiry. */
export interface TokenChange {
  name?: string;
  policy?: TokenPolicy;
  expiresAtMicros?: bigint | null;
}

/** What a gateway authenticates a token with. */
export interface TokenCredentialRecord {
  id: string;
  name: string;
  secretSha256: Buffer;
  policy: TokenPolicy;
  expiresAtMicros: bigint | undefined;
}

/** The gateways' view: the version, and the requirement and live tokens when it moved past theirs. */
export type AuthSnapshot =
  | { version: string; changed: false }
  | { version: string; changed: true; requireToken: boolean; tokens: TokenCredentialRecord[] };
