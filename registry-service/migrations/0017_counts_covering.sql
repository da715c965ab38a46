-- migrate: no-transaction
-- The counts' reads as index-only scans. event_counts holds about one row per event at minute width
-- (a device seldom sends twice in one minute, domain and event type apart), so a read that visits
-- its heap rows reads most of its pages at random: on a 10 M-event database, the 20 largest devices
-- of 30 days took seconds. With the counted column in the index, a read touches the index alone
-- (the rows of finished buckets are all-visible once vacuumed). Built CONCURRENTLY (see 0005), each
-- dropped first so an interrupted build is rebuilt on a re-run.
-- The buckets of a range, any device (the largest groups of group_by=device_name).
DROP INDEX CONCURRENTLY IF EXISTS event_counts_start_idx;
CREATE INDEX CONCURRENTLY event_counts_start_idx ON event_counts (width, start) INCLUDE (device_name, n);
-- One device's buckets (a device_name filter, or the series of the listed devices).
DROP INDEX CONCURRENTLY IF EXISTS event_counts_device_cover_idx;
CREATE INDEX CONCURRENTLY event_counts_device_cover_idx ON event_counts (width, device_name, start) INCLUDE (n);
DROP INDEX CONCURRENTLY IF EXISTS event_counts_device_idx;
-- The totals and groups without a device, likewise.
DROP INDEX CONCURRENTLY IF EXISTS event_type_counts_cover_idx;
CREATE INDEX CONCURRENTLY event_type_counts_cover_idx ON event_type_counts (width, start) INCLUDE (domain, event_type, n);
