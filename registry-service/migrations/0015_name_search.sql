-- migrate: no-transaction
-- q= on the device, object and event type lists: a case-insensitive substring of a name or id
-- (ILIKE '%…%'), answered from trigram GIN indexes (pg_trgm, shipped with PostgreSQL and with the
-- embedded one; a trusted extension, so the database's owner may create it). Built CONCURRENTLY
-- (see 0005), each dropped first so an interrupted build is rebuilt on a re-run.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
DROP INDEX CONCURRENTLY IF EXISTS devices_name_trgm_idx;
CREATE INDEX CONCURRENTLY devices_name_trgm_idx ON devices USING gin (device_name gin_trgm_ops);
DROP INDEX CONCURRENTLY IF EXISTS objects_search_trgm_idx;
CREATE INDEX CONCURRENTLY objects_search_trgm_idx ON objects USING gin (id gin_trgm_ops, object_name gin_trgm_ops);
DROP INDEX CONCURRENTLY IF EXISTS event_types_search_trgm_idx;
CREATE INDEX CONCURRENTLY event_types_search_trgm_idx ON event_types USING gin ((domain || '.' || event_type) gin_trgm_ops, display_name gin_trgm_ops);
