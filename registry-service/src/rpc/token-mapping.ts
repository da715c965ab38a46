import { fromProtoPolicy, invalidArgument, microsFromTimestamp, registry, TIMESTAMP_RANGE_TEXT, timestampFromMicros, toProtoPolicy, type Timestamp } from '@dynamic-events/proto';
import type { TokenChange, TokenCredentialRecord, TokenDraft, TokenRecord } from '../tokens/token-rows.js';

/* TokenService messages ↔ domain types; the handlers (tokens.ts) and the operator CLI share them. */


const optionalTimestamp = (us: bigint | undefined): Timestamp | undefined => (us === undefined ? undefined : timestampFromMicros(us));

function expiryMicros(ts: Timestamp | undefined): bigint | undefined {
  if (ts === undefined) return undefined;
  const us = microsFromTimestamp(ts);
  if (us === undefined) throw invalidArgument('expires_at', 'timestamp', `expires_at is not a valid timestamp (${TIMESTAMP_RANGE_TEXT})`);
  return us;
}

export function toProtoToken(token: TokenRecord): registry.Token {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    policy: toProtoPolicy(token.policy),
    createdAt: timestampFromMicros(token.createdAtMicros),
    lastUsedAt: optionalTimestamp(token.lastUsedAtMicros),
    expiresAt: optionalTimestamp(token.expiresAtMicros),
    revokedAt: optionalTimestamp(token.revokedAtMicros),
    readOnly: token.bootstrap,
  };
}

export function toProtoCredential(token: TokenCredentialRecord): registry.TokenCredential {
  return {
    id: token.id,
    name: token.name,
    secretSha256: token.secretSha256,
    policy: toProtoPolicy(token.policy),
    expiresAt: optionalTimestamp(token.expiresAtMicros),
  };
}

export function toTokenDraft(request: registry.CreateTokenRequest): TokenDraft {
  const expiresAtMicros = expiryMicros(request.expiresAt);
  return { name: request.name, policy: fromProtoPolicy(request.policy), ...(expiresAtMicros !== undefined ? { expiresAtMicros } : {}) };
}

export function toTokenChange(request: registry.UpdateTokenRequest): TokenChange {
  if (request.clearExpiresAt && request.expiresAt) {
    throw invalidArgument('clear_expires_at', 'conflict', 'clear_expires_at and expires_at cannot both be set');
  }
  const expiresAtMicros = request.clearExpiresAt ? null : expiryMicros(request.expiresAt);
  return {
    ...(request.name !== undefined ? { name: request.name } : {}),
    ...(request.policy ? { policy: fromProtoPolicy(request.policy) } : {}),
    ...(expiresAtMicros !== undefined ? { expiresAtMicros } : {}),
  };
}
