import { AppError } from '@dynamic-events/proto';
import type pg from 'pg';
import { BOOTSTRAP_TOKEN_NAME } from '../../tokens/token-policy.js';
import type { Queryable } from '../pool.js';
import { bumpVersionWhen } from './auth-settings.js';
import { query } from './query.js';
import { withoutRowDetail } from './tokens.js';
import { inTransaction } from './transaction.js';

/** The bootstrap row's secret as the caller derived it (never the secret itself). */
interface BootstrapSecret {
  /** Used only when no bootstrap row exists yet. */
  id: string;
  prefix: string;
  secretSha256: Buffer;
}

/** The unique constraint on secret_sha256 (migration 0007). */
const SECRET_CONSTRAINT = 'tokens_secret_sha256_key';

/**
 * Inserts the bootstrap row, or brings the existing one to this secret and un-revokes it; the
 * version moves (and the requirement turns on) only when something changed, so restarts leave
 * gateways alone. Resolves with what happened.
 *
 * Replicas starting at once queue on the settings row first. ON CONFLICT alone is not enough: two
 * inserts of the same secret also collide on the secret's unique index, which is not the arbiter,
 * and the later one would fail instead of finding the row. Once the lock is held, the statement
 * (a new snapshot) sees the winner's row and takes the DO UPDATE path.
 */
export async function upsertBootstrapToken(pool: pg.Pool, secret: BootstrapSecret): Promise<'created' | 'updated' | 'unchanged'> {
  const rows = await inTransaction(pool, async (client) => {
    await query(client, 'SELECT 1 FROM auth_settings WHERE id FOR UPDATE');
    return query<{ created: boolean }>(client, UPSERT, [secret.id, BOOTSTRAP_TOKEN_NAME, secret.prefix, secret.secretSha256]).catch(fromSecretConflict);
  });
  const [row] = rows;
  if (!row) return 'unchanged';
  return row.created ? 'created' : 'updated';
}

const UPSERT = `WITH changed AS (
    INSERT INTO tokens (id, name, prefix, secret_sha256, bootstrap)
    VALUES ($1, $2, $3, $4, true)
    ON CONFLICT (bootstrap) WHERE bootstrap DO UPDATE
      SET name = EXCLUDED.name, prefix = EXCLUDED.prefix, secret_sha256 = EXCLUDED.secret_sha256,
          revoked_at = NULL, updated_at = now()
      WHERE tokens.secret_sha256 <> EXCLUDED.secret_sha256 OR tokens.revoked_at IS NOT NULL OR tokens.name <> EXCLUDED.name
    RETURNING (xmax = 0) AS created
  ), ${bumpVersionWhen('changed', true)}
  SELECT created FROM changed`;

/** An operator who copied a created token's secret into the setting: said so, without either secret. */
function fromSecretConflict(err: unknown): never {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== '23505' || constraint !== SECRET_CONSTRAINT) throw withoutRowDetail(err);
  // No cause: pg's detail of this violation quotes the hash.
  throw new AppError('FAILED_PRECONDITION', `${BOOTSTRAP_TOKEN_NAME} is the secret of a token created through TokenService: choose another value`);
}

/** Revokes the bootstrap row if it is live (the setting was removed); resolves with whether it did. */
export async function revokeBootstrapToken(db: Queryable): Promise<boolean> {
  const rows = await query<{ id: string }>(
    db,
    `WITH changed AS (
       UPDATE tokens SET revoked_at = now(), updated_at = now() WHERE bootstrap AND revoked_at IS NULL RETURNING id
     ), ${bumpVersionWhen('changed')}
     SELECT id FROM changed`,
  );
  return rows.length > 0;
}
