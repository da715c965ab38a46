import { AppError, IDEMPOTENCY_KEY_HEADER } from '@dynamic-events/proto';
import type { Queryable } from '../pool.js';
import { EVENT_COLUMNS, toStoredEvent, type EventRow, type StoredEvent } from './events.js';
import { query } from './query.js';

/** A stored key: the fingerprint of the request that recorded it, and its event. */
interface StoredKey {
  scope: string;
  key: string;
  requestHash: string;
  event: StoredEvent;
}

/** The rule of the error a statement gets when another transaction committed the same key first. */
export const KEY_IN_USE_RULE = 'key-in-use';

/** Postgres' name for the primary key of idempotency_keys (see the migration). */
const KEYS_PRIMARY_KEY = 'idempotency_keys_pkey';

/**
 * Maps the unique violation of a key another transaction committed meanwhile to ALREADY_EXISTS, so
 * group commit isolates that event and the caller can look the key up again; other errors pass.
 */
export function fromKeyConflict(err: unknown): unknown {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== '23505' || constraint !== KEYS_PRIMARY_KEY) return err;
  return new AppError('ALREADY_EXISTS', `${IDEMPOTENCY_KEY_HEADER} is in use by a concurrent request; retry`, { field: IDEMPOTENCY_KEY_HEADER, rule: KEY_IN_USE_RULE }, err);
}

/** The stored keys among `keys`, with their events, in one query (missing keys are simply absent). */
export async function findIdempotencyKeys(db: Queryable, keys: Array<{ scope: string; key: string }>): Promise<StoredKey[]> {
  const rows = await query<EventRow & { scope: string; key: string; request_hash: string }>(
    db,
    `SELECT k.scope, k.key, k.request_hash, ${EVENT_COLUMNS}
     FROM unnest($1::text[], $2::text[]) AS wanted(scope, key)
     JOIN idempotency_keys k ON k.scope = wanted.scope AND k.key = wanted.key
     JOIN events e ON e.id = k.event_id`,
    [keys.map((k) => k.scope), keys.map((k) => k.key)],
  );
  return rows.map((row) => ({ scope: row.scope, key: row.key, requestHash: row.request_hash, event: toStoredEvent(row) }));
}

/** The committed keys of one scope among `keys`, with their request hashes (no event read). */
export async function findRequestHashes(db: Queryable, scope: string, keys: string[]): Promise<Array<{ key: string; requestHash: string }>> {
  const rows = await query<{ key: string; request_hash: string }>(
    db,
    'SELECT key, request_hash FROM idempotency_keys WHERE scope = $1 AND key = ANY ($2::text[])',
    [scope, keys],
    'registry-find-request-hashes',
  );
  return rows.map((row) => ({ key: row.key, requestHash: row.request_hash }));
}

/**
 * Deletes up to `limit` keys older than `ttlSeconds`, oldest first; resolves with how many went.
 * Rows another purge (another replica) is deleting are skipped rather than waited for.
 */
export async function purgeIdempotencyKeys(db: Queryable, ttlSeconds: number, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    db,
    `WITH doomed AS (
       SELECT scope, key FROM idempotency_keys
       WHERE created_at < now() - make_interval(secs => $1)
       ORDER BY created_at LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), deleted AS (
       DELETE FROM idempotency_keys k USING doomed d WHERE k.scope = d.scope AND k.key = d.key RETURNING 1
     )
     SELECT count(*) AS n FROM deleted`,
    [ttlSeconds, limit],
  );
  return Number(rows[0]?.n ?? 0);
}
