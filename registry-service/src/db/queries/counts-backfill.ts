import type { Queryable } from '../pool.js';
import { countingStatement } from './count-events-sql.js';
import { query } from './query.js';

/*
 * The counts' backfill statements (migration 0016): its state, the end of a page of events by id,
 * and one step. A step runs under the rollup cursor's lock (event-rollup.ts lockRollupCursor), so
 * rollup and backfill steps never run at once and each sees the other's cursor as committed.
 */

/** The backfill's cursor and bound (uuid text); undefined when there is nothing left to count. */
interface BackfillState {
  countedThrough: string | null;
  bound: string;
}

/** Where the backfill stands; undefined once finished (or when there was nothing to count). */
export async function backfillState(db: Queryable): Promise<BackfillState | undefined> {
  const rows = await query<{ counted_through: string | null; bound: string | null }>(
    db,
    'SELECT counted_through, bound FROM event_counts_backfill WHERE finished_at IS NULL',
  );
  const row = rows[0];
  return row === undefined || row.bound === null ? undefined : { countedThrough: row.counted_through, bound: row.bound };
}

/** The id of the `limit`-th event after `after` (all when null) and at most `bound`; `bound` when fewer remain. */
export async function backfillPageEnd(db: Queryable, after: string | null, bound: string, limit: number): Promise<string> {
  const rows = await query<{ last: string | null; n: string }>(
    db,
    `SELECT (array_agg(id ORDER BY id DESC))[1] AS last, count(*) AS n
     FROM (SELECT id FROM events WHERE ($1::uuid IS NULL OR id > $1::uuid) AND id <= $2::uuid ORDER BY id LIMIT $3) AS page`,
    [after, bound, limit],
  );
  const row = rows[0];
  return row !== undefined && row.last !== null && Number(row.n) === limit ? row.last : bound;
}

/**
 * Counts the events with ids in (after, through] except those of the commits after the rollup
 * cursor (`rolledThrough`: the rollup counts those), and moves the backfill's cursor, finished
 * when it reaches the bound; one statement, so a crash loses or repeats nothing.
 */
const BACKFILL = countingStatement(
  `backlog AS MATERIALIZED (
  SELECT x.id FROM commit_log c CROSS JOIN LATERAL unnest(c.event_ids) AS x(id) WHERE c.seq > $3
), ev AS MATERIALIZED (
  SELECT e.created_at, e.device_name, e.object_ref, e.domain, e.event_type FROM events e
  WHERE ($1::uuid IS NULL OR e.id > $1::uuid) AND e.id <= $2::uuid AND e.id NOT IN (SELECT id FROM backlog)
)`,
  `UPDATE event_counts_backfill SET counted_through = $2::uuid, finished_at = CASE WHEN bound = $2::uuid THEN now() END
   WHERE finished_at IS NULL RETURNING 1`,
);

/** One backfill step (see BACKFILL): the events it counted. */
export async function backfillStep(db: Queryable, after: string | null, through: string, rolledThrough: bigint): Promise<number> {
  const rows = await query<{ events: string }>(db, BACKFILL, [after, through, rolledThrough.toString()]);
  return Number(rows[0]?.events ?? 0);
}
