import { invalidArgument, microsFromTimestamp, registry, timestampFromMicros, type Timestamp } from '@dynamic-events/proto';
import type { TokenPolicy } from '../domain/token-policy.js';
import type { TokenChange, TokenCredentialRecord, TokenDraft, TokenRecord } from '../domain/tokens.js';

/* TokenService messages ↔ domain types; the handlers (tokens.ts) and the operator CLI share them. */

/**
 * A protobuf policy in domain terms. An unset StringList stays absent (no restriction), a set one
 * keeps its values even when empty (nothing allowed); int64s arrive as decimal strings.
 */
export function fromProtoPolicy(policy: registry.TokenPolicy | undefined): TokenPolicy {
  if (!policy) return {};
  return {
    ...(policy.mayCreate ? { mayCreate: policy.mayCreate.values } : {}),
    ...(policy.domains ? { domains: policy.domains.values } : {}),
    ...(policy.maxDevices !== undefined ? { maxDevices: Number(policy.maxDevices) } : {}),
    ...(policy.maxObjects !== undefined ? { maxObjects: Number(policy.maxObjects) } : {}),
    ...(policy.rate ? { rate: { perSecond: policy.rate.perSecond, burst: policy.rate.burst } } : {}),
  };
}

export function toProtoPolicy(policy: TokenPolicy): registry.TokenPolicy {
  return {
    mayCreate: policy.mayCreate === undefined ? undefined : { values: policy.mayCreate },
    domains: policy.domains === undefined ? undefined : { values: policy.domains },
    maxDevices: policy.maxDevices === undefined ? undefined : String(policy.maxDevices),
    maxObjects: policy.maxObjects === undefined ? undefined : String(policy.maxObjects),
    rate: policy.rate && { perSecond: policy.rate.perSecond, burst: policy.rate.burst },
  };
}

const optionalTimestamp = (us: bigint | undefined): Timestamp | undefined => (us === undefined ? undefined : timestampFromMicros(us));

function expiryMicros(ts: Timestamp | undefined): bigint | undefined {
  if (ts === undefined) return undefined;
  const us = microsFromTimestamp(ts);
  if (us === undefined) throw invalidArgument('expires_at', 'timestamp', 'expires_at is not a valid timestamp (years 0001-9999)');
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
