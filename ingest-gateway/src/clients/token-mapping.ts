import { formatTimestamp, registry } from '@dynamic-events/proto';
import type { TokenCredential, TokenPolicy, TokenRecord, TokenState } from '../token-model.js';

/** A policy in protobuf terms: an unset field stays unset (no restriction), an empty list stays empty. */
export function toProtoPolicy(policy: TokenPolicy): registry.TokenPolicy {
  return {
    mayCreate: policy.mayCreate === undefined ? undefined : { values: policy.mayCreate },
    domains: policy.domains === undefined ? undefined : { values: policy.domains },
    maxDevices: policy.maxDevices === undefined ? undefined : String(policy.maxDevices),
    maxObjects: policy.maxObjects === undefined ? undefined : String(policy.maxObjects),
    rate: policy.rate,
  };
}

/** A protobuf policy in gateway terms, with only the fields that are set. */
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

const optionalTime = (ts: registry.Token['expiresAt']): string | null => (ts ? formatTimestamp(ts) : null);

export function toTokenRecord(token: registry.Token | undefined): TokenRecord {
  if (!token) throw new Error('registry answered without a token');
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    policy: fromProtoPolicy(token.policy),
    createdAt: formatTimestamp(token.createdAt),
    lastUsedAt: optionalTime(token.lastUsedAt),
    expiresAt: optionalTime(token.expiresAt),
    revokedAt: optionalTime(token.revokedAt),
    readOnly: token.readOnly,
  };
}

/** A SyncTokens answer that changed, as the state the authenticator looks tokens up in. */
export function toTokenState(response: registry.SyncTokensResponse): TokenState {
  const byHash = new Map<string, TokenCredential>();
  for (const token of response.tokens) {
    const expiresAtMs = token.expiresAt ? Number(token.expiresAt.seconds) * 1000 + Math.floor(token.expiresAt.nanos / 1e6) : undefined;
    byHash.set(Buffer.from(token.secretSha256).toString('base64'), { id: token.id, name: token.name, policy: fromProtoPolicy(token.policy), expiresAtMs });
  }
  return { version: response.version, requireToken: response.settings?.requireToken ?? true, byHash };
}
