import { hashTokenSecret, tokenPrefixOf } from '@dynamic-events/proto';
import type pg from 'pg';
import { revokeBootstrapToken, upsertBootstrapToken } from '../db/queries/bootstrap-token.js';
import { uuidv7 } from '../uuid-v7.js';

/** What applying the setting did, for the start-up log (never the secret, nor its hash). */
type BootstrapOutcome = 'created' | 'updated' | 'unchanged' | 'revoked' | 'absent';

/** A generated secret's length: `dhe_` and 43 base64url characters. */
const GENERATED_LENGTH = 47;

/**
 * The bootstrap secret's listed prefix. An operator may choose a short one ("changeme-please"):
 * tokenPrefixOf's 12 characters would then show most of it to everyone who lists tokens, so a
 * secret shorter than a generated one shows only its first quarter.
 */
function bootstrapPrefix(secret: string): string {
  return secret.length >= GENERATED_LENGTH ? tokenPrefixOf(secret) : secret.slice(0, Math.floor(secret.length / 4));
}

/**
 * Brings the bootstrap row in line with DYNAMIC_EVENTS_TOKEN at start-up (after the migrations):
 * set, the row holds its hash and is live, and like any new token it makes the instance require
 * one; unset, a live row is revoked. Each case is one transaction, safe with replicas starting
 * together, and the version moves only when something changed (restarts cost gateways nothing).
 */
export async function applyBootstrapToken(pool: pg.Pool, secret: string | undefined): Promise<BootstrapOutcome> {
  if (secret === undefined) return (await revokeBootstrapToken(pool)) ? 'revoked' : 'absent';
  return upsertBootstrapToken(pool, { id: uuidv7(), prefix: bootstrapPrefix(secret), secretSha256: hashTokenSecret(secret) });
}
