-- Counts over time (GET …/dynamic-events/counts) and each device's and object's last_seen_at, kept
-- by a background pass (registry-service/src/counts/rollup.ts) that reads the commit log after its
-- cursor, like the webhook fan-out: the ingest transaction writes nothing more. Each pass adds its
-- events to one row per bucket (UTC minute, hour and day) and (device, domain, event type) in
-- event_counts, and per bucket and (domain, event type) in event_type_counts (the answer without a
-- device filter reads far fewer rows there), and moves last_seen_at once per device and object.

CREATE TABLE event_counts (
  width       text NOT NULL,
  start       timestamptz NOT NULL,
  device_name text NOT NULL,
  domain      text NOT NULL,
  event_type  text NOT NULL,
  n           bigint NOT NULL,
  PRIMARY KEY (width, start, device_name, domain, event_type),
  CONSTRAINT event_counts_width_check CHECK (width IN ('minute', 'hour', 'day'))
);
-- One device's buckets (a device_name filter, or the groups of group_by=device_name).
CREATE INDEX event_counts_device_idx ON event_counts (width, device_name, start);

CREATE TABLE event_type_counts (
  width      text NOT NULL,
  start      timestamptz NOT NULL,
  domain     text NOT NULL,
  event_type text NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (width, start, domain, event_type),
  CONSTRAINT event_type_counts_width_check CHECK (width IN ('minute', 'hour', 'day'))
);

-- The pass's cursor: every commit numbered up to this is counted. Commits after it are kept by
-- retention until counted (as webhooks' fanned_through keeps theirs).
CREATE TABLE event_rollup_state (
  singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  rolled_through bigint NOT NULL
);

-- Nullable without a default: adding them rewrites no row. NULL: no event counted yet.
ALTER TABLE devices ADD COLUMN last_seen_at timestamptz;
ALTER TABLE objects ADD COLUMN last_seen_at timestamptz;

-- Rebuilds the counts and last_seen_at from the events rows, leaving out the events of commits
-- after the cursor (the pass counts those), in one transaction: for the bench's seed, which writes
-- events without the commit log. The events already stored when this migration runs are counted in
-- short transactions by the backfill of migration 0016. One statement's snapshot sees the commit
-- log and the events alike.
CREATE FUNCTION dynamic_events_rebuild_counts() RETURNS void LANGUAGE plpgsql AS $$
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
  DROP TABLE counted_events;
END
$$;

INSERT INTO event_rollup_state (rolled_through) SELECT coalesce(max(seq), 0) FROM commit_log;
