-- Idempotency-Key: one row per key, written in the same statement as its event, so a key exists
-- exactly when its event does. request_hash tells a retry (same request) from a reuse (another one).
-- scope is '' until keys are scoped to the caller's token (issue 9): it is part of the primary key
-- already, so scoping keys later needs no migration of the keys themselves.
CREATE TABLE idempotency_keys (
  scope        text NOT NULL DEFAULT '',
  key          text NOT NULL,
  request_hash text NOT NULL,
  event_id     uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);
-- The background purge deletes the oldest keys first, in small batches.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
-- ON DELETE CASCADE from events (never deleted today) would otherwise scan the table.
CREATE INDEX idempotency_keys_event_id_idx ON idempotency_keys (event_id);
