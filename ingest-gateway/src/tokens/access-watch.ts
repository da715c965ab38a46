import { domainAllowed, patternWithin } from '@dynamic-events/proto';
import type { TokenCredential, TokenState } from './token-model.js';
import type { TokenSource } from './token-sync.js';

/** Why a long-lived response lost its access (the SSE stream's `unauthorized` frame says it). */
export type AccessEnd = 'token revoked' | 'token expired' | 'token required' | 'token domains narrowed';

/** The domains a response reads: one domain, or patterns, or (neither) every domain. */
interface DomainReach {
  domain?: string;
  domainPatterns?: readonly string[];
}

/** Ends long-lived responses (the SSE stream) once a new request with their credential would be refused. */
export interface AccessWatch {
  /**
   * Watches the access a request was granted: `credential` is what the authenticator answered
   * (undefined: the bootstrap token, or no token needed). Calls `end` once, at once if the access
   * is already gone; answers the release the response calls when it ends on its own. `reach` is
   * what the response reads: it ends too once the token's domains do not allow all of it.
   */
  hold(credential: TokenCredential | undefined, end: (reason: AccessEnd) => void, reach?: DomainReach): () => void;
}

/** setTimeout's longest delay; a later expiry is checked again when it fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

interface Holder {
  credential: TokenCredential | undefined;
  end: (reason: AccessEnd) => void;
  reach: DomainReach;
  timer?: NodeJS.Timeout;
}

/**
 * The authenticator's rules, applied again to granted access whenever the token state changes (a
 * revocation reaches this gateway's copy within TOKEN_SYNC_INTERVAL_MS, at once when this gateway
 * served it) and at a token's expiry (one timer per holder, set at its expires_at: nothing runs
 * per event). A token is followed by its id, so a changed expiry or a revocation applies, and so
 * does a narrowed policy: a response whose domains the token's new `domains` do not all allow ends
 * (a widened one goes on). Access granted without a token (the instance required none) ends when
 * the instance starts requiring one; the bootstrap token's never does. While the instance requires
 * no token nothing ends.
 */
export function createAccessWatch(deps: { bootstrap: boolean; tokens: TokenSource | undefined }): AccessWatch {
  const { bootstrap, tokens } = deps;
  if (tokens === undefined) return { hold: () => () => {} };
  const holders = new Set<Holder>();
  const byId = new WeakMap<TokenState, Map<string, TokenCredential>>();

  function credentialsById(state: TokenState): Map<string, TokenCredential> {
    let found = byId.get(state);
    if (found === undefined) {
      found = new Map([...state.byHash.values()].map((credential) => [credential.id, credential]));
      byId.set(state, found);
    }
    return found;
  }

  /** The reason access is gone, or the expiry (ms) to check again at (undefined: none). */
  function verdict(holder: Holder, state: TokenState): AccessEnd | number | undefined {
    if (!bootstrap && !state.requireToken) return undefined;
    if (holder.credential === undefined) return bootstrap ? undefined : 'token required';
    const live = credentialsById(state).get(holder.credential.id);
    if (live === undefined) return 'token revoked';
    if (live.expiresAtMs !== undefined && live.expiresAtMs <= Date.now()) return 'token expired';
    if (!withinDomains(live.policy.domains, holder.reach)) return 'token domains narrowed';
    return live.expiresAtMs;
  }

  function check(holder: Holder): void {
    clearTimeout(holder.timer);
    const state = tokens?.current();
    if (state === undefined || !holders.has(holder)) return;
    const found = verdict(holder, state);
    if (typeof found === 'string') {
      holders.delete(holder);
      holder.end(found);
    } else if (found !== undefined) {
      holder.timer = setTimeout(() => check(holder), Math.min(Math.max(found - Date.now(), 0), MAX_DELAY_MS));
      holder.timer.unref();
    }
  }

  tokens.onChange(() => {
    for (const holder of [...holders]) check(holder);
  });

  return {
    hold(credential, end, reach = {}) {
      const holder: Holder = { credential, end, reach };
      holders.add(holder);
      check(holder);
      return () => {
        clearTimeout(holder.timer);
        holders.delete(holder);
      };
    },
  };
}

/** Whether a policy's `domains` (undefined: no restriction) allow everything `reach` reads. */
function withinDomains(domains: readonly string[] | undefined, reach: DomainReach): boolean {
  if (domains === undefined) return true;
  if (reach.domain !== undefined) return domainAllowed(domains, reach.domain);
  return (reach.domainPatterns ?? ['*']).every((pattern) => patternWithin(domains, pattern));
}
