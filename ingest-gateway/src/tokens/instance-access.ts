import { AppError } from '@dynamic-events/proto';
import type { TokenState } from './token-model.js';

/**
 * What a gateway does with a sender's request: `open` lets every request pass (tokens sent are
 * ignored), `token_required` needs a live token, `closed` needs a token while none is live (every
 * request is refused with 401 until a token is created or require_token is turned off).
 */
export type InstanceAccess = 'open' | 'token_required' | 'closed';

/**
 * The access of a gateway holding `state`, under the registry's `requireToken`. The bootstrap
 * token (DYNAMIC_EVENTS_TOKEN) is live and required whatever the setting; a token counts as live
 * by the gateway's clock, as the authenticator checks expiry.
 */
export function instanceAccess(state: TokenState | undefined, requireToken: boolean, bootstrap: boolean, now = Date.now()): InstanceAccess {
  if (bootstrap) return 'token_required';
  if (!requireToken) return 'open';
  // Whether a live token exists is this gateway's copy's answer: before it came, nobody can tell.
  if (state === undefined) throw new AppError('UNAVAILABLE', 'tokens are not loaded yet: retry shortly', { retryAfterSeconds: 1, rule: 'tokens-loading' });
  for (const credential of state.byHash.values()) if (credential.expiresAtMs === undefined || credential.expiresAtMs > now) return 'token_required';
  return 'closed';
}
