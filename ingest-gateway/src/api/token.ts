import { policyToJson } from '@dynamic-events/proto';
import type { TokenRecord } from '../tokens/token-model.js';

/** A token as the admin API shows it (never a secret); `read_only` marks the bootstrap token. */
export function presentToken(token: TokenRecord): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    policy: policyToJson(token.policy),
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    last_used_at: token.lastUsedAt,
    revoked_at: token.revokedAt,
    read_only: token.readOnly,
  };
}
