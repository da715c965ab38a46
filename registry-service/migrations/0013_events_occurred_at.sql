-- migrate: no-transaction
-- When an event happened by its device's clock (NULL: not sent), beside created_at, when it was
-- recorded. A nullable column without a default is added without rewriting the table. The index
-- serves the lists ordered by it (keyset pages on (occurred_at, id)) and its range filters; events
-- without one are not in it, as they are not in those lists. Built CONCURRENTLY (see 0005), so a
-- large table keeps taking writes; dropped first, so an interrupted build is rebuilt on a re-run.
ALTER TABLE events ADD COLUMN IF NOT EXISTS occurred_at timestamptz;
DROP INDEX CONCURRENTLY IF EXISTS events_occurred_at_id_idx;
CREATE INDEX CONCURRENTLY events_occurred_at_id_idx ON events (occurred_at, id) WHERE occurred_at IS NOT NULL;
