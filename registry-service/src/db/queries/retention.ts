import type { Queryable } from '../pool.js';
import { query } from './query.js';

/**
 * The tables EVENT_RETENTION empties, each by its created_at index: events (their Idempotency-Keys go
 * with them, ON DELETE CASCADE) and webhook deliveries (their attempts go with them; pending ones
 * too: the log and the backlog are kept as long as the events).
 */
type ExpiringTable = 'events' | 'webhook_deliveries';

/**
 * Deletes up to `limit` rows of `table` created more than `olderThanSeconds` ago, oldest first. Rows
 * another replica's retention is deleting are skipped, not waited for.
 */
export async function deleteExpired(db: Queryable, table: ExpiringTable, olderThanSeconds: number, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    db,
    `WITH doomed AS (
       SELECT id FROM ${table}
       WHERE created_at < now() - make_interval(secs => $1)
       ORDER BY created_at LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), deleted AS (
       DELETE FROM ${table} t USING doomed d WHERE t.id = d.id RETURNING 1
     )
     SELECT count(*) AS n FROM deleted`,
    [olderThanSeconds, limit],
  );
  return Number(rows[0]?.n ?? 0);
}
