import type pg from 'pg';
import { readAuthSnapshot, readRequireToken, touchTokens, writeRequireToken } from '../db/queries/auth-settings.js';
import { isTokenId } from './tokens.js';
import type { AuthSnapshot } from './token-rows.js';

/** The instance's authentication settings and the gateways' snapshot of them (TokenService's other half). */
export interface AuthSettings {
  requireToken(): Promise<boolean>;
  /** An admin's decision; resolves with the value now in force. */
  setRequireToken(requireToken: boolean): Promise<boolean>;
  /**
   * Records which tokens were used, then answers the snapshot when it moved past `knownVersion`.
   * Gateways call it about once a second each: one short statement when nothing changed.
   */
  sync(knownVersion: string, usedTokenIds: string[]): Promise<AuthSnapshot>;
}

/** Canonical decimal of a version (what Postgres answers), so "007" or "+7" compare as 7; garbage holds nothing. */
function canonicalVersion(version: string): string {
  try {
    return BigInt(version).toString();
  } catch {
    return '0';
  }
}

export function createAuthSettings(pool: pg.Pool): AuthSettings {
  return {
    requireToken: () => readRequireToken(pool),
    async setRequireToken(requireToken) {
      await writeRequireToken(pool, requireToken);
      return requireToken;
    },
    async sync(knownVersion, usedTokenIds) {
      // A malformed id names no token: dropped here, so it can neither fail the uuid cast nor the sync.
      const used = [...new Set(usedTokenIds.filter(isTokenId).map((id) => id.toLowerCase()))];
      if (used.length > 0) await touchTokens(pool, used);
      return readAuthSnapshot(pool, canonicalVersion(knownVersion));
    },
  };
}
