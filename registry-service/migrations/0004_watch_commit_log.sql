-- Watch: a log of what each write statement created, one row per statement, numbered in the order
-- the writes finished.
--
-- Every write statement takes nextval('commit_seq') LAST, after all its inserts (and so after every
-- wait on another writer's unique key), and logs what it created under that number. Nothing is
-- locked until commit, so writers never wait for each other's commits (a counter row updated in the
-- statement would serialise every commit). The numbers are not gapless (a failed statement loses
-- its number) and a statement may commit after a higher-numbered one; watchers therefore read only
-- up to a bound below which every number's transaction has finished (domain/commit-feed.ts).
--
-- Order guarantee: a statement that waited for another writer's row (a first sighting of the same
-- device, object or event type) takes its number after that writer committed, so after that
-- writer's number; a statement that started after another committed also numbers after it. So a
-- watcher never receives an event before the device.created, object.created or event_type.created
-- it refers to. CACHE 1 (the default): cached ranges per session would break that order.
CREATE SEQUENCE commit_seq AS bigint CACHE 1;

CREATE TABLE commit_log (
  seq          bigint PRIMARY KEY,
  written_at   timestamptz NOT NULL DEFAULT now(),
  -- What the statement created, each list in the order a watcher receives it: devices, objects,
  -- event types (sorted, as inserted), then the events in request order.
  device_names text[] NOT NULL,
  object_ids   text[] NOT NULL,
  type_domains text[] NOT NULL,
  type_names   text[] NOT NULL,
  event_ids    uuid[] NOT NULL
);

-- The watch history's identity and how much of it was purged (WATCH_RETENTION). log_id binds
-- cursors to this database: a cursor of another deployment is refused instead of misread.
CREATE TABLE commit_log_state (
  singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  log_id         uuid NOT NULL DEFAULT gen_random_uuid(),
  -- Every commit numbered up to this was purged; a cursor below it cannot resume.
  purged_through bigint NOT NULL DEFAULT 0
);
INSERT INTO commit_log_state DEFAULT VALUES;
