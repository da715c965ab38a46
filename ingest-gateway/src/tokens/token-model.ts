import type { TokenPolicy } from '@dynamic-events/proto';

/**
 * The gateway's plain types for tokens (protobuf types stop in clients/tokens.ts). Field names
 * follow the gateway's camelCase; the presenter writes the API's snake_case.
 */

// The policy's type and its JSON shape are shared with the registry (proto's token-policy.ts).
export type { TokenRate } from '@dynamic-events/proto';

/** A token as listed: never its secret. Timestamps are RFC 3339 strings, null when unset. */
export interface TokenRecord {
  id: string;
  name: string;
  prefix: string;
  policy: TokenPolicy;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** The bootstrap token (DYNAMIC_EVENTS_TOKEN). */
  readOnly: boolean;
}

/** An exact instant (the shape of a protobuf Timestamp). */
export interface Instant {
  seconds: string;
  nanos: number;
}

/** A new token's settings. */
export interface TokenDraft {
  name: string;
  policy?: TokenPolicy;
  expiresAt?: Instant;
}

/** A change to a token: absent fields stay; `expiresAt: null` removes the expiry. */
export interface TokenChange {
  name?: string;
  policy?: TokenPolicy;
  expiresAt?: Instant | null;
}

/** What a gateway authenticates a token with. */
export interface TokenCredential {
  id: string;
  name: string;
  policy: TokenPolicy;
  /** Milliseconds since the epoch; undefined: never expires. */
  expiresAtMs: number | undefined;
}

/** The registry's token state as a gateway holds it. */
export interface TokenState {
  version: string;
  requireToken: boolean;
  /** Credentials by the SHA-256 of their secret (base64). */
  byHash: Map<string, TokenCredential>;
}
