import { formatTimestamp, fromProtoPolicy, policyToJson, registry, type PolicyJson, type Timestamp } from '@dynamic-events/proto';

/** A token in the HTTP API's snake_case shape: RFC 3339 times, null when unset; never a secret. */
export interface TokenJson {
  id: string;
  name: string;
  prefix: string;
  policy: PolicyJson;
  created_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  read_only: boolean;
}

const time = (ts: Timestamp | undefined): string | null => (ts ? formatTimestamp(ts) : null);

export function tokenJson(token: registry.Token | undefined): TokenJson {
  if (!token) throw new Error('the registry answered without a token');
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    policy: policyToJson(fromProtoPolicy(token.policy)),
    created_at: time(token.createdAt),
    expires_at: time(token.expiresAt),
    last_used_at: time(token.lastUsedAt),
    revoked_at: time(token.revokedAt),
    read_only: token.readOnly,
  };
}

/** The auth settings in the HTTP API's shape. */
export function settingsJson(settings: registry.AuthSettings | undefined): { require_token: boolean } {
  if (!settings) throw new Error('the registry answered without settings');
  return { require_token: settings.requireToken };
}
