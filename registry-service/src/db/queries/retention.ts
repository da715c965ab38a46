import type { Queryable } from '../pool.js';
import { query } from './query.js';

/**
 * Deletes up to `limit` events created more than `olderThanSeconds` ago, oldest first (the
 * (created_at, id) index of migration 0005 finds them); their Idempotency-Keys go with them (ON
 * DELETE CASCADE). Rows another replica's retention is deleting are skipped, not waited for.
 */
export async function deleteExpiredEvents(db: Queryable, olderThanSeconds: number, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    db,
    `WITH doomed AS (
       SELECT id FROM events
       WHERE created_at < now() - make_interval(secs => $1)
       ORDER BY created_at LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), deleted AS (
       DELETE FROM events e USING doomed d WHERE e.id = d.id RETURNING 1
     )
     SELECT count(*) AS n FROM deleted`,
    [olderThanSeconds, limit],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Deletes up to `limit` webhook deliveries (with their attempts) created more than
 * `olderThanSeconds` ago, pending ones too: the log and the backlog are kept as long as the events.
 */
export async function deleteExpiredDeliveries(db: Queryable, olderThanSeconds: number, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    db,
    `WITH doomed AS (
       SELECT id FROM webhook_deliveries
       WHERE created_at < now() - make_interval(secs => $1)
       ORDER BY created_at LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), deleted AS (
       DELETE FROM webhook_deliveries d USING doomed x WHERE d.id = x.id RETURNING 1
     )
     SELECT count(*) AS n FROM deleted`,
    [olderThanSeconds, limit],
  );
  return Number(rows[0]?.n ?? 0);
}
