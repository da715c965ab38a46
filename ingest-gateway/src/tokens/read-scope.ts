import { AppError, domainAllowed } from '@dynamic-events/proto';
import type { TokenCredential } from './token-model.js';

/**
 * What a token may read (README, Tokens: "What a token may read"). A token whose policy lists
 * `domains` reads events, objects and event types of those domains only, and the devices it
 * created (a device has no domain of its own). Its lists and stream must name a `domain` its
 * patterns allow (one domain at a time: the registry filters by that domain, so nothing else can
 * reach the answer, page tokens included); device lists, and `token_id` of another token, are
 * refused. A token without a domains restriction, the bootstrap token and an open instance (no
 * token) read everything: their scope is undefined.
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

/** A list or stream of events, objects or event types: it must name a domain the token may read. */
export function checkListScope(scope: ReadScope | undefined, filter: { domain?: string; tokenId?: string }): void {
  if (scope === undefined) return;
  if (filter.domain === undefined || !domainAllowed(scope.domains, filter.domain)) {
    throw refused(scope, 'lists and streams that name one of its domains in domain=', 'domain');
  }
  if (filter.tokenId !== undefined && filter.tokenId.toLowerCase() !== scope.tokenId.toLowerCase()) {
    throw refused(scope, 'its own events by token_id', 'token_id');
  }
}

/** The device list: a domain-restricted token may not list devices (it reads those it created one by one). */
export function checkDeviceListScope(scope: ReadScope | undefined): void {
  if (scope !== undefined) throw refused(scope, 'the devices it created, by name', 'device_name');
}
