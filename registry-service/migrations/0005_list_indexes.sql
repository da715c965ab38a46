-- migrate: no-transaction
-- Indexes for the lists (keyset pages on (created_at, id), newest first by default) that the existing
-- ones do not serve: every event (no filter, a time range only; also what EVENT_RETENTION deletes
-- by), one domain without an event type, and a domain's objects by id. Device, object and
-- (domain, event type) filters use the (…, created_at) indexes of 0001.
--
-- Built CONCURRENTLY so a database already holding millions of events keeps taking writes while
-- they build. Such statements cannot run inside a transaction: the runner runs this file statement
-- by statement (the no-transaction marker above) and records it once all succeeded. An interrupted
-- build leaves an INVALID index behind: each is dropped first, so running the file again rebuilds it.
DROP INDEX CONCURRENTLY IF EXISTS events_created_at_id_idx;
CREATE INDEX CONCURRENTLY events_created_at_id_idx ON events (created_at, id);
DROP INDEX CONCURRENTLY IF EXISTS events_domain_created_at_idx;
CREATE INDEX CONCURRENTLY events_domain_created_at_idx ON events (domain, created_at);
DROP INDEX CONCURRENTLY IF EXISTS objects_object_domain_id_idx;
CREATE INDEX CONCURRENTLY objects_object_domain_id_idx ON objects (object_domain, id);
