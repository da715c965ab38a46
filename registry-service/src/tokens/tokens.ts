import { AppError, hashTokenSecret, newTokenSecret, quoteName, tokenPrefixOf } from '@dynamic-events/proto';
import type pg from 'pg';
import { findToken, insertToken, listTokens, revokeToken, updateToken } from '../db/queries/tokens.js';
import { validateExpiry, validatePolicy, validateTokenName } from './token-policy.js';
import type { TokenChange, TokenDraft, TokenRecord } from './token-rows.js';
import { isUuid, uuidv7 } from '../uuid-v7.js';

/** Token management for the settings module (TokenService's Create/List/Get/Update/Revoke). */
export interface Tokens {
  /** Resolves with the token and its secret, which is never available again. */
  create(draft: TokenDraft): Promise<{ token: TokenRecord; secret: string }>;
  list(): Promise<TokenRecord[]>;
  get(id: string): Promise<TokenRecord>;
  update(id: string, change: TokenChange): Promise<TokenRecord>;
  revoke(id: string): Promise<TokenRecord>;
}

/** True for a well-formed UUID; anything else cannot name a token (and must not reach a uuid cast). */
export const isTokenId = isUuid;

function notFound(id: string): AppError {
  const shown = isTokenId(id) ? id : quoteName(id.slice(0, 64), '"');
  return new AppError('NOT_FOUND', `token ${shown} not found`, { field: 'id' });
}

const readOnly = (): AppError =>
  new AppError('FAILED_PRECONDITION', 'the bootstrap token changes only with DYNAMIC_EVENTS_TOKEN', { field: 'id', rule: 'read-only' });

export function createTokens(pool: pg.Pool, now: () => number = Date.now): Tokens {
  const get = async (id: string): Promise<TokenRecord> => {
    const token = isTokenId(id) ? await findToken(pool, id) : undefined;
    if (!token) throw notFound(id);
    return token;
  };
  /** The token a change found nothing to apply to; the bootstrap row is refused as read-only. */
  const unchangeable = async (id: string): Promise<TokenRecord> => {
    const token = await get(id);
    if (token.bootstrap) throw readOnly();
    return token;
  };
  return {
    async create(draft) {
      const name = validateTokenName(draft.name);
      const policy = validatePolicy(draft.policy);
      const expiresAtMicros = draft.expiresAtMicros === undefined ? undefined : validateExpiry(draft.expiresAtMicros, now());
      const secret = newTokenSecret();
      const row = { id: uuidv7(now()), name, policy, expiresAtMicros, prefix: tokenPrefixOf(secret), secretSha256: hashTokenSecret(secret) };
      return { token: await insertToken(pool, row), secret };
    },
    list: () => listTokens(pool),
    get,
    async update(id, change) {
      const checked: TokenChange = {
        ...(change.name !== undefined ? { name: validateTokenName(change.name) } : {}),
        ...(change.policy !== undefined ? { policy: validatePolicy(change.policy) } : {}),
        ...(change.expiresAtMicros !== undefined ? { expiresAtMicros: change.expiresAtMicros === null ? null : validateExpiry(change.expiresAtMicros, now()) } : {}),
      };
      const updated = isTokenId(id) ? await updateToken(pool, id, checked) : undefined;
      if (updated) return updated;
      const token = await unchangeable(id);
      if (token.revokedAtMicros !== undefined) throw new AppError('FAILED_PRECONDITION', `token ${id} is revoked`, { field: 'id', rule: 'revoked' });
      // Tokens are never deleted and a revoked one stays revoked: the statement cannot have missed a live one.
      throw new Error(`token ${id} is live but the update matched no row`);
    },
    async revoke(id) {
      const revoked = isTokenId(id) ? await revokeToken(pool, id) : undefined;
      if (revoked) return revoked;
      // Already revoked: revoking again answers it as it is (and changes no version).
      return unchangeable(id);
    },
  };
}
