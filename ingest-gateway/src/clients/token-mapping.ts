import { formatTimestamp, fromProtoPolicy, registry } from '@dynamic-events/proto';
import type { TokenCredential, TokenRecord, TokenState } from '../tokens/token-model.js';

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
