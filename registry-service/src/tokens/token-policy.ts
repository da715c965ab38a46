import { checkDomainPattern, checkIdentityText, checkPolicyNumbers, DOMAIN_PATTERNS_MAX_COUNT, invalidArgument, isBlank, ruleError, type TokenPolicy } from '@dynamic-events/proto';
import { withinLength } from '../ingest/validate-event.js';

// The policy's type and its JSON shape are shared with the gateway (proto's token-policy.ts).
export type { TokenPolicy } from '@dynamic-events/proto';

/** The kinds of entity a token may be allowed to create, as the API spells them. */
export const CREATABLE_KINDS = ['devices', 'objects', 'event_types'] as const;

/** The name the bootstrap row carries; no other token may take it, so it identifies that row alone. */
export const BOOTSTRAP_TOKEN_NAME = 'DYNAMIC_EVENTS_TOKEN';

const TOKEN_NAME_MAX_LENGTH = 100;
/**
 * Checks a token name (no trimming: what is sent is what is shown); throws INVALID_ARGUMENT naming
 * `name`. A name follows the identity rules (no U+0000, lone surrogate, control or bidirectional
 * formatting character; NFC; not blank, zero-width characters counting as blank): it is shown in
 * lists, logs and messages, and two names that display alike must not be two tokens. The bootstrap
 * token's name is reserved in any letter case.
 */
export function validateTokenName(name: string): string {
  if (name === '') throw invalidArgument('name', 'required', 'name is required');
  if (!withinLength(name, TOKEN_NAME_MAX_LENGTH)) throw invalidArgument('name', 'max-length', `name must be at most ${TOKEN_NAME_MAX_LENGTH} characters`);
  checkIdentityText('name', name);
  if (isBlank(name)) throw ruleError.notEmpty('name');
  if (name.toUpperCase() === BOOTSTRAP_TOKEN_NAME || name.toLowerCase() === BOOTSTRAP_TOKEN_NAME.toLowerCase()) {
    throw invalidArgument('name', 'reserved', `name ${BOOTSTRAP_TOKEN_NAME} is reserved for the bootstrap token (in any letter case)`);
  }
  return name;
}

/** Checks an expiry against the clock: a token that is born expired is a mistake, not a choice. */
export function validateExpiry(expiresAtMicros: bigint, nowMs = Date.now()): bigint {
  if (expiresAtMicros <= BigInt(nowMs) * 1000n) throw invalidArgument('expires_at', 'future', 'expires_at must be in the future');
  return expiresAtMicros;
}

/** Checks every field of a policy; throws INVALID_ARGUMENT naming the field path (`policy.domains[2]`). */
export function validatePolicy(policy: TokenPolicy): TokenPolicy {
  if (policy.mayCreate !== undefined) checkList('policy.may_create', policy.mayCreate, CREATABLE_KINDS.length, checkKind);
  if (policy.domains !== undefined) checkList('policy.domains', policy.domains, DOMAIN_PATTERNS_MAX_COUNT, checkDomainPattern);
  // The numbers' ranges are shared with the gateway and the CLI, which check them before the wire.
  checkPolicyNumbers(policy);
  return policy;
}

function checkList(field: string, values: string[], maxCount: number, checkItem: (field: string, value: string) => void): void {
  if (values.length > maxCount) throw invalidArgument(field, 'max-items', `${field} must hold at most ${maxCount} entries`);
  const seen = new Set<string>();
  values.forEach((value, i) => {
    const item = `${field}[${i}]`;
    checkItem(item, value);
    if (seen.has(value)) throw invalidArgument(item, 'duplicate', `${item} repeats ${JSON.stringify(value)}`);
    seen.add(value);
  });
}

function checkKind(field: string, value: string): void {
  if (!(CREATABLE_KINDS as readonly string[]).includes(value)) throw invalidArgument(field, 'one-of', `${field} must be one of ${CREATABLE_KINDS.join(', ')}`);
}
