import type { Queryable } from '../pool.js';
import { countingStatement } from './count-events-sql.js';
import { query } from './query.js';

/*
 * The rollup pass's statements (migration 0014): its cursor, one step over a page of commits, and
 * retention of the counts.
 */

/** The cursor, locked for this transaction; undefined when another replica's pass holds it. */
export async function lockRollupCursor(db: Queryable): Promise<bigint | undefined> {
  const rows = await query<{ through: string }>(db, 'SELECT rolled_through AS through FROM event_rollup_state FOR UPDATE SKIP LOCKED');
  return rows[0] === undefined ? undefined : BigInt(rows[0].through);
}

/** The cursor, unlocked: retention keeps the commits after it. */
export async function rollupFloor(db: Queryable): Promise<bigint> {
  const rows = await query<{ through: string }>(db, 'SELECT rolled_through AS through FROM event_rollup_state');
  return BigInt(rows[0]?.through ?? 0);
}

/** The number of the `limit`-th commit after `after` and at most `bound`; `bound` when fewer remain. */
export async function pageEnd(db: Queryable, after: bigint, bound: bigint, limit: number): Promise<bigint> {
  const rows = await query<{ last: string | null; n: string }>(
    db,
    'SELECT max(seq) AS last, count(*) AS n FROM (SELECT seq FROM commit_log WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3) AS page',
    [after.toString(), bound.toString(), limit],
  );
  const row = rows[0];
  return row !== undefined && row.last !== null && Number(row.n) === limit ? BigInt(row.last) : bound;
}

/**
 * Counts the events of the commits numbered in (after, through] into every bucket width of both
 * tables, moves each device's and object's last_seen_at (once per pass, only forward) and the
 * cursor, in one statement. Rows retention deleted before they were counted are simply absent.
 * While the backfill runs (migration 0016), events whose ids it has still ahead of it are its own.
 */
const ROLL_UP = countingStatement(
  `ev AS MATERIALIZED (
  SELECT e.created_at, e.device_name, e.object_ref, e.domain, e.event_type
  FROM commit_log c CROSS JOIN LATERAL unnest(c.event_ids) AS x(id) JOIN events e ON e.id = x.id
  WHERE c.seq > $1 AND c.seq <= $2
    AND NOT EXISTS (SELECT 1 FROM event_counts_backfill b
                    WHERE b.finished_at IS NULL AND e.id <= b.bound AND (b.counted_through IS NULL OR e.id > b.counted_through))
)`,
  'UPDATE event_rollup_state SET rolled_through = $2 RETURNING 1',
);

/** One step of the pass (see ROLL_UP): the events it counted. */
export async function rollUp(db: Queryable, after: bigint, through: bigint): Promise<number> {
  const rows = await query<{ events: string }>(db, ROLL_UP, [after.toString(), through.toString()], 'registry-counts-roll-up');
  return Number(rows[0]?.events ?? 0);
}

/**
 * Deletes up to `limit` count rows of `table` whose bucket ended more than `olderThanSeconds` ago
 * (the events of a bucket that ends later are still kept, in part), skipping rows another replica
 * is deleting.
 */
export async function deleteExpiredCounts(db: Queryable, table: 'event_counts' | 'event_type_counts', olderThanSeconds: number, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    db,
    `WITH deleted AS (
       DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${table}
         WHERE (width = 'minute' AND start < now() - make_interval(secs => $1) - interval '1 minute')
            OR (width = 'hour' AND start < now() - make_interval(secs => $1) - interval '1 hour')
            OR (width = 'day' AND start < now() - make_interval(secs => $1) - interval '1 day')
         LIMIT $2
         FOR UPDATE SKIP LOCKED))
       RETURNING 1
     )
     SELECT count(*) AS n FROM deleted`,
    [olderThanSeconds, limit],
  );
  return Number(rows[0]?.n ?? 0);
}
