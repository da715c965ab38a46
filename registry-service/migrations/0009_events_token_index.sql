-- migrate: no-transaction
-- ListEvents' token_id filter: a token's events in (created_at) order. Partial: events sent
-- without a token (every event before tokens existed) are not indexed. Built CONCURRENTLY, like
-- 0005, so a database holding millions of events keeps taking writes while it builds; an
-- interrupted build leaves an INVALID index behind, dropped first when the file runs again.
DROP INDEX CONCURRENTLY IF EXISTS events_token_id_created_at_idx;
CREATE INDEX CONCURRENTLY events_token_id_created_at_idx ON events (token_id, created_at) WHERE token_id IS NOT NULL;
