/*
 * The statement shape the counts' rollup and backfill share (migrations 0014, 0016): the events of
 * a CTE `ev` added to every bucket width of both count tables, each device's and object's
 * last_seen_at moved (only forward), and the caller's cursor moved, in one statement.
 */

/**
 * The counting statement: `events` is the leading CTEs, the last one named `ev` with created_at,
 * device_name, object_ref, domain and event_type; `moveCursor` an UPDATE … RETURNING 1 of the
 * caller's cursor. Answers the events counted.
 */
export function countingStatement(events: string, moveCursor: string): string {
  return `
WITH ${events}, bucketed AS MATERIALIZED (
  SELECT w.width, date_trunc(w.width, ev.created_at, 'UTC') AS start, ev.device_name, ev.domain, ev.event_type, count(*) AS n
  FROM ev CROSS JOIN (VALUES ('minute'), ('hour'), ('day')) AS w(width)
  GROUP BY 1, 2, 3, 4, 5
), by_device AS (
  INSERT INTO event_counts AS t (width, start, device_name, domain, event_type, n)
  SELECT width, start, device_name, domain, event_type, n FROM bucketed ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (width, start, device_name, domain, event_type) DO UPDATE SET n = t.n + EXCLUDED.n
  RETURNING 1
), by_type AS (
  INSERT INTO event_type_counts AS t (width, start, domain, event_type, n)
  SELECT width, start, domain, event_type, sum(n) FROM bucketed GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (width, start, domain, event_type) DO UPDATE SET n = t.n + EXCLUDED.n
  RETURNING 1
), devices_seen AS (
  UPDATE devices d SET last_seen_at = l.at
  FROM (SELECT device_name, max(created_at) AS at FROM ev GROUP BY 1) AS l
  WHERE d.device_name = l.device_name AND (d.last_seen_at IS NULL OR d.last_seen_at < l.at)
  RETURNING 1
), objects_seen AS (
  UPDATE objects o SET last_seen_at = l.at
  FROM (SELECT object_ref, max(created_at) AS at FROM ev GROUP BY 1) AS l
  WHERE o.id = l.object_ref AND (o.last_seen_at IS NULL OR o.last_seen_at < l.at)
  RETURNING 1
), moved AS (
  ${moveCursor}
)
SELECT (SELECT count(*) FROM ev) AS events, (SELECT count(*) FROM by_device) + (SELECT count(*) FROM by_type) AS rows,
       (SELECT count(*) FROM devices_seen) + (SELECT count(*) FROM objects_seen) + (SELECT count(*) FROM moved) AS touched`;
}
