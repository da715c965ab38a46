import type { TokenPolicy, TokenRecord } from '../token-model.js';

/** A policy in the API's shape, with only the fields that are set. */
export function presentPolicy(policy: TokenPolicy): Record<string, unknown> {
  return {
    ...(policy.mayCreate !== undefined ? { may_create: policy.mayCreate } : {}),
    ...(policy.domains !== undefined ? { domains: policy.domains } : {}),
    ...(policy.maxDevices !== undefined ? { max_devices: policy.maxDevices } : {}),
    ...(policy.maxObjects !== undefined ? { max_objects: policy.maxObjects } : {}),
    ...(policy.rate !== undefined ? { rate: { per_second: policy.rate.perSecond, burst: policy.rate.burst } } : {}),
  };
}

/** A token as the admin API shows it (never a secret); `read_only` marks the bootstrap token. */
export function presentToken(token: TokenRecord): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    policy: presentPolicy(token.policy),
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    last_used_at: token.lastUsedAt,
    revoked_at: token.revokedAt,
    read_only: token.readOnly,
  };
}
