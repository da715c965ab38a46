import { AppError, domainAllowed } from '@dynamic-events/proto';
import type { TokenCredential } from './token-model.js';

/**
 * What a token may read (registry-service/README.md, "What a token may read"). A token whose policy lists
 * `domains` reads events, objects and event types of those domains only, and the devices it
 * created (a device has no domain of its own). Its lists and stream run with its patterns as the
 * registry's `domain_patterns` filter, so nothing else reaches the answer, page tokens included
 * (they are bound to the filter); a `domain=` it names must be one its patterns allow, and
 * `token_id` must be its own (else 403). Its device list is the devices it created. A token without
 * a domains restriction, the bootstrap token and an open instance (no token) read everything: their
 * scope is undefined.
 */
interface ReadScope {
  tokenId: string;
  tokenName: string;
  domains: readonly string[];
}

export function readScopeOf(token: TokenCredential | undefined): ReadScope | undefined {
  const domains = token?.policy.domains;
  return token === undefined || domains === undefined ? undefined : { tokenId: token.id, tokenName: token.name, domains };
}

/** Whether a record of `domain` is visible. */
export function domainVisible(scope: ReadScope | undefined, domain: string): boolean {
  return scope === undefined || domainAllowed(scope.domains, domain);
}

/** Whether a device (created by `createdByTokenId`) is visible. */
export function deviceVisible(scope: ReadScope | undefined, createdByTokenId: string | null): boolean {
  return scope === undefined || createdByTokenId === scope.tokenId;
}

/**
 * An out-of-scope single read answers as an unknown one: 404 with the registry's own message
 * (reads.ts in the registry), so a token cannot tell a hidden record from an absent one.
 */
export function hidden(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} not found`);
}

function refused(scope: ReadScope, what: string, field: string): AppError {
  // Names the token and the rule, never a value of the request.
  const message = `token '${scope.tokenName}' may read only ${what} (allowed domains: ${scope.domains.join(', ')})`;
  return new AppError('PERMISSION_DENIED', message, { field, rule: 'token-domains' });
}

/**
 * The filter a list or stream of events, objects or event types runs with: the request's own for a
 * token that reads everything; for a domain-restricted token, its `domain=` when its patterns allow
 * it, else its patterns (403 for a domain outside them, or another token's token_id).
 */
export function scopedFilter<F extends { domain?: string; tokenId?: string }>(scope: ReadScope | undefined, filter: F): F & { domainPatterns?: readonly string[] } {
  if (scope === undefined) return filter;
  if (filter.domain !== undefined && !domainAllowed(scope.domains, filter.domain)) throw refused(scope, 'its domains', 'domain');
  if (filter.tokenId !== undefined && filter.tokenId.toLowerCase() !== scope.tokenId.toLowerCase()) {
    throw refused(scope, 'its own events by token_id', 'token_id');
  }
  return filter.domain !== undefined ? filter : { ...filter, domainPatterns: scope.domains };
}

/** The device list's filter: a domain-restricted token lists the devices it created. */
export function deviceListFilter(scope: ReadScope | undefined): { createdByTokenId?: string } {
  return scope === undefined ? {} : { createdByTokenId: scope.tokenId };
}
