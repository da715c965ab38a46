import { AppError, policyFromJson, policyToJson } from '@dynamic-events/proto';
import type { NewTokenRow, TokenChange, TokenRecord } from '../../tokens/token-rows.js';
import type pg from 'pg';
import type { Queryable } from '../pool.js';
import { bumpVersionWhen } from './auth-settings.js';
import { micros, query, timestampFromMicros } from './query.js';
import { inTransaction } from './transaction.js';

interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  policy: unknown;
  bootstrap: boolean;
  created_us: string;
  last_used_us: string | null;
  expires_us: string | null;
  revoked_us: string | null;
}

/** The columns every token query selects, as TokenRow (never the hash: nothing but SyncTokens needs it). */
const TOKEN_COLUMNS = `id, name, prefix, policy, bootstrap, ${micros('created_at')} AS created_us, ${micros('last_used_at')} AS last_used_us,
  ${micros('expires_at')} AS expires_us, ${micros('revoked_at')} AS revoked_us`;

/** The partial unique index of migration 0007: names are unique among tokens not revoked. */
const ACTIVE_NAME_INDEX = 'tokens_active_name_key';

const optionalMicros = (value: string | null): bigint | undefined => (value === null ? undefined : BigInt(value));

function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    policy: policyFromJson(row.policy),
    bootstrap: row.bootstrap,
    createdAtMicros: BigInt(row.created_us),
    lastUsedAtMicros: optionalMicros(row.last_used_us),
    expiresAtMicros: optionalMicros(row.expires_us),
    revokedAtMicros: optionalMicros(row.revoked_us),
  };
}

/**
 * Drops the `detail` of a pg error about a tokens row before anything can log it: for a check or
 * not-null violation pg quotes the whole failing row there, the secret's hash included. The
 * SQLSTATE, constraint and message stay, enough to diagnose.
 */
export function withoutRowDetail(err: unknown): unknown {
  for (const candidate of [err, err instanceof AppError ? err.cause : undefined]) {
    if (typeof candidate === 'object' && candidate !== null && 'detail' in candidate) (candidate as { detail?: unknown }).detail = undefined;
  }
  return err;
}

/** Runs a statement on the tokens table; its failures never carry row contents (withoutRowDetail). */
async function tokenQuery<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  return query<R>(db, text, values).catch((err: unknown) => {
    throw withoutRowDetail(err);
  });
}

/** Maps the name index's unique violation to ALREADY_EXISTS naming `name`; other errors pass. */
function fromNameConflict(err: unknown, name: string | undefined): unknown {
  // query() passes constraint violations through unchanged (they are not outages).
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== '23505' || constraint !== ACTIVE_NAME_INDEX) return err;
  return new AppError('ALREADY_EXISTS', `a token named ${JSON.stringify(name)} already exists`, { field: 'name', rule: 'unique' }, err);
}

/** Inserts a token and, in the same statement, bumps the version and turns the token requirement on. */
export async function insertToken(db: Queryable, token: NewTokenRow): Promise<TokenRecord> {
  const rows = await tokenQuery<TokenRow>(
    db,
    `WITH changed AS (
       INSERT INTO tokens (id, name, prefix, secret_sha256, policy, expires_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::timestamptz)
       RETURNING *
     ), ${bumpVersionWhen('changed', true)}
     SELECT ${TOKEN_COLUMNS} FROM changed`,
    [token.id, token.name, token.prefix, token.secretSha256, JSON.stringify(policyToJson(token.policy)), optionalTimestamp(token.expiresAtMicros)],
  ).catch((err: unknown) => {
    throw fromNameConflict(err, token.name);
  });
  const [row] = rows;
  if (!row) throw new Error('INSERT … RETURNING answered no row');
  return toTokenRecord(row);
}

/** Every token, oldest first. */
export async function listTokens(db: Queryable): Promise<TokenRecord[]> {
  const rows = await tokenQuery<TokenRow>(db, `SELECT ${TOKEN_COLUMNS} FROM tokens ORDER BY created_at, id`);
  return rows.map(toTokenRecord);
}

/** One token by id (a well-formed UUID), or undefined. */
export async function findToken(db: Queryable, id: string): Promise<TokenRecord | undefined> {
  const [row] = await tokenQuery<TokenRow>(db, `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE id = $1`, [id]);
  return row && toTokenRecord(row);
}

/**
 * Applies a change to a live, non-bootstrap token and bumps the version; undefined when no such
 * token was there to change (the caller looks the row up to say why).
 *
 * The row is locked FOR UPDATE first, in its own statement: that waits for every write statement
 * that read the token's policy under its KEY SHARE lock (record-events-sql.ts) to commit, and the
 * UPDATE after it reads a snapshot that holds all their creations. A new policy recounts what the
 * token created so far from the rows themselves (writes count only while a limit is set), so the
 * counters are exact when the limit starts; the writes that wait for this lock count their own
 * creations against the new policy.
 */
export async function updateToken(pool: pg.Pool, id: string, change: TokenChange): Promise<TokenRecord | undefined> {
  const policy = change.policy === undefined ? null : JSON.stringify(policyToJson(change.policy));
  const expiresAt = change.expiresAtMicros === undefined || change.expiresAtMicros === null ? null : timestampFromMicros(change.expiresAtMicros);
  const rows = await inTransaction(pool, async (client) => {
    await tokenQuery(client, 'SELECT 1 FROM tokens WHERE id = $1 AND NOT bootstrap AND revoked_at IS NULL FOR UPDATE', [id]);
    return tokenQuery<TokenRow>(client, UPDATE_TOKEN, [id, change.name ?? null, policy, change.expiresAtMicros === null, expiresAt]);
  }).catch((err: unknown) => {
    throw fromNameConflict(err, change.name);
  });
  return rows[0] && toTokenRecord(rows[0]);
}

const UPDATE_TOKEN = `WITH changed AS (
    UPDATE tokens SET
      name = COALESCE($2, name),
      policy = COALESCE($3::jsonb, policy),
      devices_created = CASE WHEN $3::jsonb IS NULL THEN devices_created
                             ELSE (SELECT count(*) FROM devices WHERE created_by_token_id = $1::uuid) END,
      objects_created = CASE WHEN $3::jsonb IS NULL THEN objects_created
                             ELSE (SELECT count(*) FROM objects WHERE created_by_token_id = $1::uuid) END,
      expires_at = CASE WHEN $4::boolean THEN NULL ELSE COALESCE($5::timestamptz, expires_at) END,
      updated_at = now()
    WHERE id = $1 AND NOT bootstrap AND revoked_at IS NULL
    RETURNING *
  ), ${bumpVersionWhen('changed')}
  SELECT ${TOKEN_COLUMNS} FROM changed`;

/** Revokes a live, non-bootstrap token and bumps the version; undefined when there was none to revoke. */
export async function revokeToken(db: Queryable, id: string): Promise<TokenRecord | undefined> {
  const [row] = await tokenQuery<TokenRow>(
    db,
    `WITH changed AS (
       UPDATE tokens SET revoked_at = now(), updated_at = now()
       WHERE id = $1 AND NOT bootstrap AND revoked_at IS NULL
       RETURNING *
     ), ${bumpVersionWhen('changed')}
     SELECT ${TOKEN_COLUMNS} FROM changed`,
    [id],
  );
  return row && toTokenRecord(row);
}

function optionalTimestamp(us: bigint | undefined): string | null {
  return us === undefined ? null : timestampFromMicros(us);
}
