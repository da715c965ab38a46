import { policyFromJson } from '@dynamic-events/proto';
import { type Logger } from '@dynamic-events/proto/runtime';
import type pg from 'pg';
import { listLivePolicies, readTokensVersion, revokedAmong } from '../db/queries/token-policies.js';
import type { TokenPolicy } from './token-policy.js';

/** What the write path applies of a token's policy. */
export interface TokenRules {
  name: string;
  policy: TokenPolicy;
  /** Microseconds since the epoch; undefined: never expires. Compared with the clock at each use. */
  expiresAtMicros?: bigint;
}

/** Why a token id is not among the live tokens. */
export type AbsentToken = 'revoked' | 'unknown';

/** The live tokens' policies, as the write path reads them. */
export interface TokenPolicies {
  /** Rules of these tokens, at most `maxAgeMs` old; an id not known then is reloaded once. Unknown: revoked or never made. */
  rulesOf(tokenIds: Iterable<string>): Promise<Map<string, TokenRules>>;
  /** For ids rulesOf did not find: revoked, or no token at all (one query; rare, so not cached). */
  absentReasons(tokenIds: string[]): Promise<Map<string, AbsentToken>>;
}

/** Whether a token's expiry has passed at `nowMs`. */
export function hasExpired(rules: TokenRules, nowMs = Date.now()): boolean {
  return rules.expiresAtMicros !== undefined && rules.expiresAtMicros <= BigInt(nowMs) * 1000n;
}

/**
 * A cache of the token policies: the version (one cheap row) is read at most every `maxAgeMs`,
 * the policies again only when it moved, or when an event names a token the cache does not hold
 * (one made a moment ago). So a change of may_create, expiry or revocation applies to events within
 * about `maxAgeMs`; max_devices / max_objects are not read here but from the token's row, locked
 * in the write statement (record-events-sql.ts), so they apply from the change's answer on.
 */
export function createTokenPolicies(deps: { pool: pg.Pool; logger: Logger; maxAgeMs?: number }): TokenPolicies {
  const maxAgeMs = deps.maxAgeMs ?? 1000;
  let version = '';
  let checkedAt = 0;
  let rules = new Map<string, TokenRules>();
  let refreshing: Promise<void> | undefined;

  async function reload(force: boolean): Promise<void> {
    const current = await readTokensVersion(deps.pool);
    checkedAt = Date.now();
    if (!force && current === version) return;
    const next = new Map<string, TokenRules>();
    for (const row of await listLivePolicies(deps.pool)) {
      const expiry = row.expires_us === null ? {} : { expiresAtMicros: BigInt(row.expires_us) };
      try {
        next.set(row.id, { name: row.name, policy: policyFromJson(row.policy), ...expiry });
      } catch (err) {
        // Written through validatePolicy, so only a hand-edited row gets here: it may do nothing.
        deps.logger.error({ err, tokenId: row.id }, 'stored token policy is unreadable: the token may not create anything');
        next.set(row.id, { name: row.name, policy: { mayCreate: [], maxDevices: 0, maxObjects: 0 }, ...expiry });
      }
    }
    rules = next;
    version = current;
  }

  /**
   * One refresh at a time; callers arriving meanwhile share it. A forced one (a token the cache
   * does not hold) waits for a refresh in flight, which may have read the version just before
   * that token was made, then reloads.
   */
  async function refresh(force: boolean): Promise<void> {
    if (refreshing) {
      await refreshing;
      if (!force) return;
    }
    refreshing ??= reload(force).finally(() => (refreshing = undefined));
    return refreshing;
  }

  return {
    async rulesOf(tokenIds) {
      if (Date.now() - checkedAt > maxAgeMs) await refresh(false);
      const found = new Map<string, TokenRules>();
      let missing = false;
      for (const id of tokenIds) {
        const r = rules.get(id);
        if (r) found.set(id, r);
        else missing = true;
      }
      if (!missing) return found;
      await refresh(true);
      for (const id of tokenIds) {
        const r = rules.get(id);
        if (r) found.set(id, r);
      }
      return found;
    },
    async absentReasons(tokenIds) {
      const revoked = await revokedAmong(deps.pool, tokenIds);
      return new Map(tokenIds.map((id) => [id, revoked.has(id) ? 'revoked' : 'unknown']));
    },
  };
}
