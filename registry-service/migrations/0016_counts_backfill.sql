-- The counts' backfill (registry-service/src/counts/backfill.ts): the events stored before the
-- counts existed (migration 0014) are counted by the counts pass in short transactions of a bounded
-- number of events, walked in id order (the primary key) up to the largest id stored when this
-- migration ran, so the migration itself reads one index entry. Each step counts the events after
-- counted_through and moves it in the same transaction (a crash loses no step and repeats none).
-- Until finished_at is set, the rollup leaves the events of new commits whose ids are still ahead
-- of counted_through (and at most bound) to the backfill, and the backfill leaves out the events
-- of the commits the rollup has not counted yet: each event is counted once.
CREATE TABLE event_counts_backfill (
  singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- The largest event id when this migration ran; NULL: there was no event to count.
  bound           uuid,
  -- Every event with an id up to this is counted; NULL: none yet.
  counted_through uuid,
  -- When the backfill reached bound; NULL while it runs.
  finished_at     timestamptz
);

-- A database that applied 0014's first text (this checksum) had every count rebuilt by it, in the
-- migration's own transaction: nothing is left to backfill there.
INSERT INTO event_counts_backfill (bound, counted_through, finished_at)
SELECT b.bound, CASE WHEN r.rebuilt THEN b.bound END, CASE WHEN r.rebuilt OR b.bound IS NULL THEN now() END
FROM (SELECT (SELECT id FROM events ORDER BY id DESC LIMIT 1) AS bound) AS b,
     (SELECT EXISTS (SELECT 1 FROM schema_migrations
                     WHERE version = 14 AND checksum = '66b3f7bf9e868b2a7e99ef78d6253ac8d2ee15801c78b0e1216272fd15e281f5') AS rebuilt) AS r;

-- The one-shot rebuild (0014, for the bench's seed) counts every event there is: the backfill is
-- then finished too.
CREATE OR REPLACE FUNCTION dynamic_events_rebuild_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM event_counts;
  DELETE FROM event_type_counts;
  CREATE TEMP TABLE counted_events AS
    SELECT e.created_at, e.device_name, e.object_ref, e.domain, e.event_type FROM events e
    WHERE e.id NOT IN (SELECT unnest(c.event_ids) FROM commit_log c WHERE c.seq > (SELECT rolled_through FROM event_rollup_state));
  INSERT INTO event_counts (width, start, device_name, domain, event_type, n)
    SELECT w.width, date_trunc(w.width, e.created_at, 'UTC'), e.device_name, e.domain, e.event_type, count(*)
    FROM counted_events e CROSS JOIN (VALUES ('minute'), ('hour'), ('day')) AS w(width)
    GROUP BY 1, 2, 3, 4, 5;
  INSERT INTO event_type_counts (width, start, domain, event_type, n)
    SELECT width, start, domain, event_type, sum(n) FROM event_counts GROUP BY 1, 2, 3, 4;
  UPDATE devices d SET last_seen_at = l.at FROM (SELECT device_name, max(created_at) AS at FROM counted_events GROUP BY 1) l
    WHERE d.device_name = l.device_name;
  UPDATE objects o SET last_seen_at = l.at FROM (SELECT object_ref, max(created_at) AS at FROM counted_events GROUP BY 1) l
    WHERE o.id = l.object_ref;
  UPDATE event_counts_backfill SET counted_through = bound, finished_at = coalesce(finished_at, now());
  DROP TABLE counted_events;
END
$$;
