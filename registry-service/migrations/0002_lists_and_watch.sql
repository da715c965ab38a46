-- Listing and watching.
--
-- Lists page on a strict total order with no OFFSET: events on (created_at, id) (the id is unique,
-- so rows sharing a commit's timestamp still have one order), entities on their primary keys.
-- The filters the existing indexes do not cover get their own: every event newest first (no
-- filter, or a time range only), and one domain without an event type.
CREATE INDEX events_created_at_id_idx ON events (created_at, id);
CREATE INDEX events_domain_created_at_idx ON events (domain, created_at);
CREATE INDEX objects_object_domain_id_idx ON objects (object_domain, id);

-- Watch: a commit log in commit order. Every write statement ends by incrementing the one row of
-- commit_sequence (a row lock held until its commit, so the next writer gets the next number only
-- after this one committed and became visible) and by logging what it created under that number.
-- Numbers therefore follow commit order, have no gaps (a rolled-back statement rolls its increment
-- back too) and a reader that sees number n also sees every number below it.
CREATE TABLE commit_sequence (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  seq       bigint NOT NULL
);
INSERT INTO commit_sequence (singleton, seq) VALUES (true, 0);

CREATE TABLE commit_log (
  seq          bigint PRIMARY KEY,
  committed_at timestamptz NOT NULL DEFAULT now(),
  -- What the commit created, each list in the order a watcher receives it.
  device_names text[] NOT NULL,
  object_ids   text[] NOT NULL,
  type_domains text[] NOT NULL,
  type_names   text[] NOT NULL,
  event_ids    uuid[] NOT NULL
);
