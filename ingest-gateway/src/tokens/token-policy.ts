import { AppError, domainAllowed, quoteName } from '@dynamic-events/proto';
import type { EventInput } from '../model.js';
import type { TokenCredential } from './token-model.js';

/**
 * The parts of a token's policy the gateway can decide alone, before anything is stored: the
 * object_domain patterns. (What needs the registry's state, such as creating entities and their
 * counts, the registry decides in the same transaction as the write.) A refusal is 403 naming the
 * token and the rule.
 */
/**
 * True when the registry applies part of the token's policy (may_create, max_devices, max_objects):
 * before an image is stored the gateway then asks the registry (CheckEvent), so that a refused
 * event stores no image either. Other tokens pay nothing for it.
 */
export function registryDecidesFor(token: TokenCredential | undefined): boolean {
  const policy = token?.policy;
  return policy !== undefined && (policy.mayCreate !== undefined || policy.maxDevices !== undefined || policy.maxObjects !== undefined);
}

export function checkTokenPolicy(token: TokenCredential | undefined, input: EventInput): void {
  const domains = token?.policy.domains;
  if (token === undefined || domains === undefined) return;
  // The message names the field, not the value: 4xx messages reach the access log.
  if (!domainAllowed(domains, input.source.objectDomain)) {
    throw new AppError('PERMISSION_DENIED', `token ${quoteName(token.name)} may not send events of this source.object_domain (allowed: ${domains.join(', ')})`, {
      field: 'source.object_domain',
      rule: 'token-domains',
    });
  }
}
